package prober

import (
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// logTransition logs a (target, module) that starts failing, at warn with
// the reason and message, and one that recovers, at info: an SRE reading
// the log at the default level sees each outage begin and end once, not
// every probe (the failures in between stay at debug). failingSince is
// the start of the current run of failures, zero while passing; it is
// updated for r.
func logTransition(logger log.Logger, failingSince *time.Time, r *Result) {
	switch failed := !r.Success(); {
	case failed && failingSince.IsZero():
		*failingSince = r.Start
		level.Warn(logger).Log("msg", "probe started failing", "target", r.Target, "module", r.Module,
			"reason", r.Reason, "err", r.Err, "probe_id", r.ID)
	case !failed && !failingSince.IsZero():
		level.Info(logger).Log("msg", "probe recovered", "target", r.Target, "module", r.Module,
			"failed_for", time.Since(*failingSince).Round(time.Second), "probe_id", r.ID)
		*failingSince = time.Time{}
	}
}
