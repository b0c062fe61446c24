package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func rowHeader() {
	fmt.Printf("%8s  %s\n%8s %8s %10s %5s %10s %10s\n", "", "each the worst of the last 30s:",
		"elapsed", "rss_MiB", "goroutines", "fds", "ready", "stall")
}

// row prints the worst of the last 30s: RSS, goroutines, files, the
// slowest /-/ready and the harness's own longest stall.
func (h *hostileRun) row() {
	ticks := h.w.between(time.Now().Add(-30*time.Second), time.Now())
	if len(ticks) == 0 {
		return
	}
	worst := func(get func(tick) float64) float64 { return statOf(ticks, get).max }
	fmt.Printf("%8s %8.1f %10.0f %5.0f %10s %10s\n", since(h.start), worst(func(k tick) float64 { return k.rss })/(1<<20),
		worst(func(k tick) float64 { return k.goroutines }), worst(func(k tick) float64 { return k.fds }),
		ms(slices.Max(readyOf(ticks))), ms(time.Duration(worst(func(k tick) float64 { return float64(k.stall) }))))
}

// finalCounters reads failures by target and reason, and probes by target.
func (h *hostileRun) finalCounters(base string) error {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return err
	}
	h.failures, h.probesTotal = map[string]map[string]float64{}, map[string]float64{}
	for _, m := range fams["llm_prober_probe_failures_total"].GetMetric() {
		t := label(m, "target")
		if h.failures[t] == nil {
			h.failures[t] = map[string]float64{}
		}
		if v := m.GetCounter().GetValue(); v > 0 {
			h.failures[t][label(m, "reason")] += v
		}
	}
	for _, m := range fams["llm_prober_probes_total"].GetMetric() {
		h.probesTotal[label(m, "target")] += m.GetCounter().GetValue()
	}
	// How late probes started: the prober's own sign of a CPU shortage.
	for _, m := range fams["llm_prober_schedule_delay_seconds"].GetMetric() {
		hist := m.GetHistogram()
		h.lateStarts[0] = float64(hist.GetSampleCount())
		h.lateStarts[1], h.lateStarts[2] = h.lateStarts[0], h.lateStarts[0]
		for _, b := range hist.GetBucket() {
			switch b.GetUpperBound() {
			case 0.05:
				h.lateStarts[1] -= float64(b.GetCumulativeCount())
			case 0.1:
				h.lateStarts[2] -= float64(b.GetCumulativeCount())
			}
		}
	}
	return nil
}

// stat is the median and max of one per-second figure over a window.
type stat struct{ median, max float64 }

func statOf(ticks []tick, get func(tick) float64) stat {
	vals := make([]float64, 0, len(ticks))
	for _, k := range ticks {
		if v := get(k); v >= 0 {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return stat{-1, -1}
	}
	slices.Sort(vals)
	return stat{vals[len(vals)/2], vals[len(vals)-1]}
}

func readyOf(ticks []tick) []time.Duration {
	out := make([]time.Duration, len(ticks))
	for i, k := range ticks {
		out[i] = k.ready
	}
	return out
}

// quantile of sorted d, nearest rank.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

func (h *hostileRun) fail(format string, args ...any) {
	h.problems = append(h.problems, fmt.Sprintf(format, args...))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func mib(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }

func reasonList(m map[string]float64) string {
	var b strings.Builder
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(&b, "%s=%.0f ", k, m[k])
	}
	return strings.TrimSpace(b.String())
}
