package bench

import (
	"context"

	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// startLive serves the run live on --web.listen-address, if given
// (Live); a bad address or web config fails before any request.
func (env *benchEnv) startLive() error {
	b := env.b
	name := report.LiveTarget(b.Label, b.Target != "", env.target)
	slo := env.slo
	if b.IgnoreEOS { // an output cut short is not good, as the report counts it
		slo = slo.Pinned()
	}
	l, err := report.StartLive(b.Web, env.target, name, slo, env.log, b.LiveHook)
	env.live = l
	return err
}

// stopLive closes the listener once the runs are over.
func (env *benchEnv) stopLive() { env.live.Stop(env.log) }

// collectMetadata asks the server about itself (unless
// --no-server-metrics) and describes this machine, then prints both.
func (env *benchEnv) collectMetadata(ctx context.Context) {
	env.meta = serverwatch.CollectMetadata(ctx, env.client, env.target, env.b.ServerMetrics, env.b.Version)
	report.WriteMetadata(env.meta, env.out)
}

// writeExtra prints one run's extra metrics.
func (env *benchEnv) writeExtra(res *benchResult) {
	if res.extra != nil {
		report.WriteExtra(res.extra, env.out, "Extra metrics during the run")
	}
}
