package otelmetrics

import (
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// pushReminder is how often a push that keeps failing is logged again,
// with the count since the last line.
const pushReminder = 10 * time.Minute

// pushLog logs the pushes' outcomes on state changes, as package
// tracing does for spans: the first failure at warn, a reminder at most
// every pushReminder while it lasts, the recovery at info. A dead
// endpoint is one line, not one per interval.
type pushLog struct {
	mu       sync.Mutex
	logger   log.Logger
	now      func() time.Time // time.Now; tests set it
	failing  bool
	since    time.Time // the first failure of the current run
	logged   time.Time // the last line about it
	failures int       // since logged
}

func newPushLog(logger log.Logger) *pushLog { return &pushLog{logger: logger, now: time.Now} }

// report is the exporter's report.
func (l *pushLog) report(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	switch {
	case err == nil && l.failing:
		level.Info(l.logger).Log("msg", "otlp_metrics: push recovered", "failed_for", now.Sub(l.since).Round(time.Second))
		l.failing = false
	case err == nil:
	case !l.failing:
		level.Warn(l.logger).Log("msg", "otlp_metrics: push failing; the histograms are cumulative, the next push that succeeds carries them", "err", err)
		l.failing, l.since, l.logged, l.failures = true, now, now, 0
	default:
		l.failures++
		if now.Sub(l.logged) >= pushReminder {
			level.Warn(l.logger).Log("msg", "otlp_metrics: push still failing", "failed_pushes", l.failures,
				"failing_for", now.Sub(l.since).Round(time.Second), "err", err)
			l.logged, l.failures = now, 0
		}
	}
}
