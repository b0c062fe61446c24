package otlphttp

import (
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// Reminder is how often an export that keeps failing is logged again,
// with the count since the last line.
const Reminder = 10 * time.Minute

// Messages are a FailureLog's lines.
type Messages struct {
	Failing      string // the first failure of a run, at warn
	StillFailing string // the reminder, at warn
	Recovered    string // at info
	CountKey     string // the reminder's count of failures since the last line
}

// FailureLog logs an exporter's outcomes on state changes: the first
// failure at warn, a reminder at most every Reminder while it lasts, the
// recovery at info. A dead endpoint is one line, not one per export.
type FailureLog struct {
	// Now is time.Now; tests set it.
	Now func() time.Time

	mu       sync.Mutex
	logger   log.Logger
	msgs     Messages
	failing  bool
	since    time.Time // the first failure of the current run
	logged   time.Time // the last line about it
	failures int       // since logged
}

// NewFailureLog logs to logger with msgs.
func NewFailureLog(logger log.Logger, msgs Messages) *FailureLog {
	return &FailureLog{Now: time.Now, logger: logger, msgs: msgs}
}

// Report takes one export's outcome, nil on success.
func (l *FailureLog) Report(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	switch {
	case err == nil && l.failing:
		level.Info(l.logger).Log("msg", l.msgs.Recovered, "failed_for", now.Sub(l.since).Round(time.Second))
		l.failing = false
	case err == nil:
	case !l.failing:
		level.Warn(l.logger).Log("msg", l.msgs.Failing, "err", err)
		l.failing, l.since, l.logged, l.failures = true, now, now, 0
	default:
		l.failures++
		if now.Sub(l.logged) >= Reminder {
			level.Warn(l.logger).Log("msg", l.msgs.StillFailing, l.msgs.CountKey, l.failures,
				"failing_for", now.Sub(l.since).Round(time.Second), "err", err)
			l.logged, l.failures = now, 0
		}
	}
}
