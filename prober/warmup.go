package prober

import (
	"net/http"
	"time"

	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
)

// Warm-up after a target restart. A server's first requests after a start
// are slow (graph capture, cache allocation, lazy compilation): the
// latencies of the first successful probes after a restart are kept out
// of the SLO series (latency histograms, slo_violations_total; they count
// as good), so that a deploy does not burn the latency budget. Warm-up
// never hides a failure: a failed warm-up probe counts in probes_total and
// probe_failures_total as any other. Every warm-up probe is also counted
// in llm_prober_warmup_probes_total. A restart is seen two ways:
//
//   - server_restart: the target's own metrics say so (a new process
//     start time, or counters that went down), via a RestartSource;
//   - failure_streak: probes found the server down (see serverDown) and a
//     later probe reached it again. This needs no server metrics.
//
// A warm-up opens at the first probe after the restart that reached the
// server, and takes at most warmup.probes probes, started within
// warmup.duration of its first one; it opens at most once per
// warmup.duration, however often the server restarts. A probe that finds
// the server down is never warm-up and ends a warm-up in progress.

// RestartSource tells when a target's server last restarted, as seen in
// its own metrics (collector.Manager implements it).
type RestartSource interface {
	// LastRestart returns the instant after which the target's server
	// last restarted: the new process's start time where the server
	// exports one, else the last scrape before its counters went down.
	// ok is false when no restart was seen.
	LastRestart(target string) (at time.Time, ok bool)
}

// Warm-up triggers: Result.Warmup and the log say which one opened it.
const (
	WarmupServerRestart = "server_restart"
	WarmupFailureStreak = "failure_streak"
)

// Warm-up outcomes, the outcome label of llm_prober_warmup_probes_total.
const (
	WarmupGood         = "good"          // succeeded and met every SLO
	WarmupSLOViolation = "slo_violation" // succeeded, missed an SLO
	WarmupFailure      = "failure"       // failed
)

// WarmupOutcomes lists the outcomes; each counter exists from the start.
var WarmupOutcomes = []string{WarmupGood, WarmupSLOViolation, WarmupFailure}

// warmupOutcome is the outcome label of a warm-up probe.
func warmupOutcome(r *Result) string {
	switch {
	case !r.Success():
		return WarmupFailure
	case !r.Good:
		return WarmupSLOViolation
	}
	return WarmupGood
}

// DetectRestarts lets the target's server metrics report restarts
// (collector.Manager); without it only failure streaks open a warm-up.
// Call before the first Apply.
func (s *Scheduler) DetectRestarts(src RestartSource) { s.restarts = src }

// warmUp marks r as warm-up (r.Warmup) when it is one of the first probes
// after a restart of its target. Called once per finished probe, from the
// job's own goroutine.
func (s *Scheduler) warmUp(j *job, r *Result) {
	if j.warmup == nil {
		j.warmup = &warmup{cfg: j.target.Warmup}
	}
	var at time.Time
	var ok bool
	if s.restarts != nil {
		at, ok = s.restarts.LastRestart(j.target.Name)
	}
	trigger, opened := j.warmup.classify(r, at, ok)
	r.Warmup, r.WarmupUntil = trigger, j.warmup.until()
	if opened {
		level.Info(s.logger).Log("msg", "Target warming up after a restart: the latencies of its next successful probes are kept out of the SLO series",
			"target", r.Target, "module", r.Module, "trigger", trigger,
			"probes", j.warmup.cfg.Probes, "duration", j.warmup.cfg.Duration)
	}
}

// warmup is the warm-up state of one job. Its probes run one after
// another, so it needs no lock.
type warmup struct {
	cfg config.Warmup
	// seen is the latest server restart acted on.
	seen time.Time
	// pending is the trigger of a restart whose warm-up has not opened:
	// only a probe started at or after since opens it, and none started
	// after deadline (zero: no deadline).
	pending         string
	since, deadline time.Time
	// trigger is the open warm-up's ("" when none is open), opened the
	// start of its first probe, left the probes it may still take.
	trigger string
	opened  time.Time
	left    int
}

// classify tells whether r, a probe that just finished, is a warm-up
// probe: its trigger, "" if not. opened is true for the probe that
// opened a warm-up. restart, when ok, is the source's latest restart.
func (w *warmup) classify(r *Result, restart time.Time, ok bool) (trigger string, opened bool) {
	if !w.cfg.Enabled() {
		return "", false
	}
	d := time.Duration(w.cfg.Duration)
	if ok && restart.After(w.seen) {
		w.seen = restart
		// A warm-up opened after the restart (by the failure streak it
		// caused) has covered it already.
		covered := !w.opened.IsZero() && !w.opened.Before(restart)
		// A restart during an open warm-up is covered by it.
		if !covered && w.pending != WarmupFailureStreak && w.trigger == "" {
			// Seen late (a scrape after the restart), the warm-up may
			// be over: no probe opens it after restart + duration.
			w.pending, w.since, w.deadline = WarmupServerRestart, restart, restart.Add(d)
		}
	}
	if serverDown(r) {
		// Down: a real failure, and the server's next answer comes from
		// a (re)started process.
		w.trigger = ""
		w.pending, w.since, w.deadline = WarmupFailureStreak, time.Time{}, time.Time{}
		return "", false
	}
	if w.trigger != "" {
		if w.left > 0 && r.Start.Before(w.opened.Add(d)) {
			w.left--
			return w.trigger, false
		}
		w.trigger = ""
	}
	if w.pending == "" || r.Start.Before(w.since) {
		return "", false // not pending, or ran against the old process
	}
	if !w.deadline.IsZero() && r.Start.After(w.deadline) {
		w.pending = "" // seen too late: the warm-up is over
		return "", false
	}
	if !w.opened.IsZero() && r.Start.Before(w.opened.Add(d)) {
		w.pending = "" // at most one warm-up per duration: a crash loop gets none
		return "", false
	}
	w.trigger, w.opened, w.left, w.pending = w.pending, r.Start, w.cfg.Probes-1, ""
	return w.trigger, true
}

// WarmupOpen reports whether the warm-up open after r is still open, for
// the status page.
func (r *Result) WarmupOpen() bool { return time.Now().Before(r.WarmupUntil) }

// until is when the open warm-up ends, zero when none is open or it has
// no probe left; see Result.WarmupUntil.
func (w *warmup) until() time.Time {
	if w.trigger == "" || w.left <= 0 {
		return time.Time{}
	}
	return w.opened.Add(time.Duration(w.cfg.Duration))
}

// serverDown reports whether a failed probe found no server at all: the
// name did not resolve, nothing listened or answered the connection, or a
// gateway in front said its upstream was gone (502). Timeouts after
// connecting and other statuses say the server is there but slow or
// refusing (vLLM's admission control answers 503 when its queue is full),
// so they neither open a warm-up nor end one.
func serverDown(r *Result) bool {
	switch r.Reason {
	case ReasonDNS, ReasonConnect, ReasonTimeoutConnect:
		return true
	case ReasonHTTP5xx:
		return r.HTTPStatus == http.StatusBadGateway
	}
	return false
}
