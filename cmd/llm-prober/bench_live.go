package main

import "github.com/llm-prober/llm-prober/loadtest"

// startLive serves the run live on --web.listen-address, if given
// (loadtest.Live); a bad address or web config fails before any request.
func (env *benchEnv) startLive() error {
	b := env.b
	name := loadtest.LiveTarget(b.label, b.target != "", env.target)
	l, err := loadtest.StartLive(b.web, env.target, name, env.slo, env.log, b.liveHook)
	env.live = l
	return err
}

// stopLive closes the listener once the runs are over.
func (env *benchEnv) stopLive() { env.live.Stop(env.log) }
