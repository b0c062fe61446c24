package main

import (
	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/prober"
)

// observe is the scheduler's Observer: the history, the last-hour
// windows, the span exporter and the GenAI metrics see every scheduled probe.
func (a *app) observe(r *prober.Result) {
	a.history.Observe(r)
	a.board.Observe(r)
	a.spans.Export(r)
	a.genai.Observe(r)
}

// serverReading gives the status windows a target's latest server signals.
func (a *app) serverReading(target string) (status.ServerReading, bool) {
	st, ok := a.servers.ServerStatus(target)
	return status.ServerReading{At: st.At, KVCacheUsage: st.KVCacheUsage, RequestsRunning: st.RequestsRunning,
		RequestsWaiting: st.RequestsWaiting, Preemptions: st.Preemptions}, ok
}
