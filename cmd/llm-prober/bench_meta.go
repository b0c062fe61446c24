package main

import (
	"context"

	"github.com/llm-prober/llm-prober/loadtest"
)

// parseExtra checks --extra-metrics-url and --extra-metrics-match (exit 2).
func (env *benchEnv) parseExtra() error {
	var err error
	env.extra, err = loadtest.NewExtraSet(env.b.extraURLs, env.b.extraMatch)
	return err
}

// collectMetadata asks the server about itself (unless
// --no-server-metrics) and describes this machine, then prints both.
func (env *benchEnv) collectMetadata(ctx context.Context) {
	env.meta = loadtest.CollectMetadata(ctx, env.client, env.target, env.b.serverMetrics, versionLine())
	env.meta.WriteText(env.out)
}

// writeExtra prints one run's extra metrics.
func (env *benchEnv) writeExtra(res *benchResult) {
	if res.extra != nil {
		res.extra.WriteText(env.out, "Extra metrics during the run")
	}
}
