package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// report prints the run's figures and records every broken bound.
func (h *hostileRun) report() {
	b := h.o.hostile
	base := h.w.between(h.calmEnd.Add(-10*time.Second), h.calmEnd)
	hot := h.w.between(h.hostStart, h.hostEnd.Add(h.o.timeout))
	end := h.w.between(h.settleEnd.Add(-10*time.Second), h.settleEnd)
	rss := func(k tick) float64 { return k.rss }
	gor := func(k tick) float64 { return k.goroutines }
	fds := func(k tick) float64 { return k.fds }
	fmt.Println("\nsummary (baseline: median of the last 10s of the calm phase; end: median of the last 10s after it settled):")
	bRSS, pRSS, eRSS := statOf(base, rss), statOf(hot, rss), statOf(end, rss)
	fmt.Printf("  rss        baseline %s, peak while hostile %s (+%s, bound +%.0f MiB), end %s\n",
		mib(bRSS.median), mib(pRSS.max), mib(pRSS.max-bRSS.median), b.rssMiB, mib(eRSS.median))
	if pRSS.max-bRSS.median > b.rssMiB*(1<<20) {
		h.fail("peak RSS %s above the baseline (bound %.0f MiB)", mib(pRSS.max-bRSS.median), b.rssMiB)
	}
	for _, f := range []struct {
		name  string
		get   func(tick) float64
		bound float64
	}{{"goroutines", gor, b.goroutines}, {"fds", fds, b.fds}} {
		bs, ps, es := statOf(base, f.get), statOf(hot, f.get), statOf(end, f.get)
		fmt.Printf("  %-10s baseline %.0f, peak while hostile %.0f, end %.0f (bound: baseline + %.0f)\n",
			f.name, bs.median, ps.max, es.median, f.bound)
		if es.median > bs.median+f.bound || bs.median < 0 {
			h.fail("%s did not return to the baseline: %.0f at the end, %.0f before", f.name, es.median, bs.median)
		}
	}
	cpu := statOf(h.w.between(h.hostEnd, h.hostEnd.Add(2*time.Second)), func(k tick) float64 { return k.cpu }).max -
		statOf(h.w.between(h.hostStart.Add(-2*time.Second), h.hostStart), func(k tick) float64 { return k.cpu }).max
	fmt.Printf("  cpu        the prober used %.0f%% of a core while hostile; probes started > 50 ms late: %.0f, > 100 ms late: %.0f, of %.0f (llm_prober_schedule_delay_seconds)\n",
		100*cpu/h.hostEnd.Sub(h.hostStart).Seconds(), h.lateStarts[1], h.lateStarts[2], h.lateStarts[0])
	fmt.Printf("  machine    some task waited for a CPU %.0f%% of the hostile phase (/proc/pressure/cpu)\n",
		100*h.w.pressure(h.hostStart, h.hostEnd))
	h.reportReady()
	h.reportProbes()
	h.reportReasons()
	h.reportServers()
	h.reportReloads()
}

// reportReloads checks each reload's outcome and that probes went on
// after every refused one (the old config kept running).
func (h *hostileRun) reportReloads() {
	for _, r := range h.reloads {
		after := h.hostStart.Add(r.at)
		n := 0
		for _, p := range h.probes {
			if p.start.After(after) && p.start.Before(after.Add(h.o.interval+time.Second)) {
				n++
			}
		}
		fmt.Printf("  reload     %-28s HTTP %d in %s, then /config shows %s, %d probes started in the next %s\n",
			r.what, r.status, ms(r.took), r.shows, n, h.o.interval+time.Second)
		if r.problem != "" {
			h.fail("reload at %s (%s): %s", r.at.Round(time.Second), r.what, r.problem)
		}
		if n == 0 {
			h.fail("reload at %s (%s): no probe started after it", r.at.Round(time.Second), r.what)
		}
	}
}

func (h *hostileRun) reportReady() {
	ticks, extra := h.w.readyTimings()
	for _, set := range []struct {
		name  string
		ticks []tick
	}{{"every second", ticks}, {"during reloads (every 5ms)", extra}, {"all", append(ticks, extra...)}} {
		d := readyOf(set.ticks)
		slices.Sort(d)
		errs := 0
		for _, k := range set.ticks {
			if k.readyErr != "" {
				errs++
			}
		}
		fmt.Printf("  /-/ready   %-27s n=%d p50 %s p99 %s max %s, not 200: %d\n",
			set.name, len(d), ms(quantile(d, 0.5)), ms(quantile(d, 0.99)), ms(quantile(d, 1)), errs)
		if set.name != "all" {
			continue
		}
		if mx := quantile(d, 1); mx >= h.o.hostile.ready {
			n, stalled := 0, 0
			for _, k := range set.ticks {
				if k.ready >= h.o.hostile.ready {
					n++
					if h.w.stallAround(k.at) >= h.o.hostile.ready/2 {
						stalled++
					}
				}
			}
			h.fail("/-/ready took %s at worst, %d of %d answers at or over %s (%d of them within a second of the harness itself oversleeping >= %s)",
				ms(mx), n, len(d), ms(h.o.hostile.ready), stalled, ms(h.o.hostile.ready/2))
		}
		if errs > 0 {
			h.fail("/-/ready failed %d times", errs)
		}
	}
}

// reportProbes checks every probe's duration (Finished-Started from
// /logs) against its timeout, and that no hostile probe succeeded.
func (h *hostileRun) reportProbes() {
	type agg struct {
		n, ok int
		max   time.Duration
	}
	per := map[string]*agg{}
	var worst probeRecord
	for _, p := range h.probes {
		a := per[p.target]
		if a == nil {
			a = &agg{}
			per[p.target] = a
		}
		a.n++
		a.max = max(a.max, p.duration())
		if p.duration() > worst.duration() {
			worst = p
		}
		margin := 50 * time.Millisecond // the mode switch is not atomic with the request
		if p.reason == "" && p.start.After(h.hostStart.Add(margin)) && p.start.Before(h.hostEnd.Add(-margin)) {
			a.ok++
		}
	}
	total := 0.0
	for _, v := range h.probesTotal {
		total += v
	}
	h.reportOverruns()
	overrun := worst.duration() - h.o.timeout
	fmt.Printf("  probes     %d seen in /logs of %.0f counted; longest %s (%s, %s): overrun %s past the %s timeout (bound %s)\n",
		len(h.probes), total, ms(worst.duration()), worst.target, worst.reason, ms(overrun), h.o.timeout, ms(h.o.hostile.overrun))
	if overrun > h.o.hostile.overrun {
		h.fail("probe %s of %s took %s, %s past its %s timeout", worst.id, worst.target, ms(worst.duration()), ms(overrun), h.o.timeout)
	}
	if float64(len(h.probes)) < 0.95*total {
		h.fail("only %d of %.0f probes seen in the history: overrun not measured for all", len(h.probes), total)
	}
	for _, k := range hostileKinds {
		a := per[k.name]
		if a == nil {
			h.fail("%s: no probe in the history", k.name)
			continue
		}
		fmt.Printf("    %-12s %4d probes, longest %s\n", k.name, a.n, ms(a.max))
		if a.ok > 0 {
			h.fail("%s: %d probes succeeded while it was hostile", k.name, a.ok)
		}
	}
	if len(h.probeErrs) > 0 {
		h.fail("reading /logs: %s", h.probeErrs[0])
	}
}

// reportOverruns lists the probes that outlived their timeout by more
// than the bound, with the harness's own stall at the time.
func (h *hostileRun) reportOverruns() {
	var over []probeRecord
	for _, p := range h.probes {
		if p.duration()-h.o.timeout > h.o.hostile.overrun {
			over = append(over, p)
		}
	}
	slices.SortFunc(over, func(a, b probeRecord) int { return int(b.duration() - a.duration()) })
	fmt.Printf("  overruns   %d probes past their timeout by more than %s\n", len(over), ms(h.o.hostile.overrun))
	for _, p := range over[:min(len(over), 8)] {
		fmt.Printf("    %s %-12s %-20s %s past the timeout; around then the harness stalled %s, CPU pressure %.0f%%\n",
			p.start.Format("15:04:05.000"), p.target, p.reason, ms(p.duration()-h.o.timeout), ms(h.w.stallAround(p.end)),
			100*h.w.pressure(p.end.Add(-2*time.Second), p.end.Add(2*time.Second)))
	}
}

// reportReasons checks the failure counters: each target failed, and only
// with its expected reasons.
func (h *hostileRun) reportReasons() {
	fmt.Println("  failures by target and reason (llm_prober_probe_failures_total):")
	for _, k := range hostileKinds {
		got := h.failures[k.name]
		fmt.Printf("    %-12s %-32s expected %s\n", k.name, reasonList(got), strings.Join(k.expect, "|"))
		if len(got) == 0 {
			h.fail("%s: no failure counted", k.name)
		}
		for r := range got {
			if !k.expected(r) {
				h.fail("%s: failed with %s, expected %s", k.name, r, strings.Join(k.expect, "|"))
			}
		}
	}
}

func (h *hostileRun) reportServers() {
	s := h.servers
	fmt.Printf("  redirect   %d hostile requests, %d with the secret; the server redirected to got %d requests, %d with the secret\n",
		s.Requests["redirect"], s.RedirectWithSecret, s.DestinationRequests, s.DestinationGotSecret)
	if s.DestinationGotSecret > 0 || s.DestinationRequests > 0 {
		h.fail("the redirect was followed: %d requests, %d with the secret", s.DestinationRequests, s.DestinationGotSecret)
	}
	if s.RedirectWithSecret == 0 {
		h.fail("the redirecting target never got the secret header: the check proves nothing")
	}
	fmt.Printf("  requests   %s\n", reasonList(toFloat(s.Requests)))
}

func toFloat(m map[string]int64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = float64(v)
	}
	return out
}

// scanHostileLog reports a panic, race, fatal error, or an error other
// than the expected refused reloads (and the refused file_sd file), or a
// count of those other than want.
func scanHostileLog(path string, want int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	refused := 0
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(line, "panic:"), strings.Contains(line, "DATA RACE"), strings.Contains(line, "fatal error:"):
			return line
		case strings.Contains(line, "level=error") && strings.Contains(line, "reload failed"):
			refused++
		case strings.Contains(line, "level=error") && strings.Contains(line, "file_sd file lists more targets than allowed"):
			// The file_sd step's file, refused as it should be.
		case strings.Contains(line, "level=error"):
			return line
		}
	}
	if refused != want {
		return fmt.Sprintf("%d refused reloads logged, want %d", refused, want)
	}
	return ""
}
