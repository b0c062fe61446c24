package tracing

import (
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// exportReminder is how often a span export that keeps failing is logged
// again, with the count since the last line.
const exportReminder = 10 * time.Minute

// exportLog logs the OTLP exporter's outcomes on state changes: the first
// failure at warn, a reminder while it lasts at most every
// exportReminder, the recovery at info. With no collector listening that
// is one line, not one per batch (every 5 s).
type exportLog struct {
	mu       sync.Mutex
	logger   log.Logger
	now      func() time.Time // time.Now; tests set it
	failing  bool
	since    time.Time // the first failure of the current run
	logged   time.Time // the last line about it
	failures int       // since logged
}

func newExportLog(logger log.Logger) *exportLog {
	return &exportLog{logger: logger, now: time.Now}
}

// report is tracing.New's report, and the OTel SDK's error handler.
func (l *exportLog) report(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	switch {
	case err == nil && l.failing:
		level.Info(l.logger).Log("msg", "tracing: OTLP span export recovered", "failed_for", now.Sub(l.since).Round(time.Second))
		l.failing = false
	case err == nil:
	case !l.failing:
		level.Warn(l.logger).Log("msg", "tracing: OTLP span export failing; probe spans are dropped until it recovers", "err", err)
		l.failing, l.since, l.logged, l.failures = true, now, now, 0
	default:
		l.failures++
		if now.Sub(l.logged) >= exportReminder {
			level.Warn(l.logger).Log("msg", "tracing: OTLP span export still failing", "failed_exports", l.failures,
				"failing_for", now.Sub(l.since).Round(time.Second), "err", err)
			l.logged, l.failures = now, 0
		}
	}
}
