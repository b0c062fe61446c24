package dashboards

// latencyHeatmaps adds the heatmaps of TTFT, ITL and E2E latency, the
// server's (all requests) beside the probes'. The probes' cells carry
// exemplars whose trace_id opens the server's trace of that request.
func latencyHeatmaps(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	b = b.WithRow(p.row("Latency heatmaps: all requests (server) vs probes"))
	for _, h := range []struct {
		name, server, probe, exemplarNote string
		exemplar                          bool
	}{
		{"TTFT", "llm_prober_server_time_to_first_token_seconds", "llm_prober_time_to_first_token_seconds",
			" Exemplars carry probe_id and trace_id (a click opens the server's trace of that probe).", true},
		{"Inter-token latency", "llm_prober_server_inter_token_latency_seconds", "llm_prober_inter_token_latency_seconds",
			" (The per-token gaps carry no exemplars.)", false},
		{"E2E latency", "llm_prober_server_e2e_request_latency_seconds", "llm_prober_e2e_latency_seconds",
			" Exemplars carry probe_id and trace_id.", true},
	} {
		b = b.WithPanel(p.heatmap(h.name+" heatmap: all requests (server)",
			"Requests per second in each bucket of the server's own "+h.name+" histogram ("+h.server+"), every client included. Backends without this histogram leave it empty (TGI has no TTFT or ITL; llama.cpp none).",
			"s", 12, 8, h.server, false)).
			WithPanel(p.heatmap(h.name+" heatmap: probes",
				"Probes per second in each bucket of llm-prober's "+h.name+" histogram ("+h.probe+")."+h.exemplarNote+successOnly,
				"s", 12, 8, h.probe, h.exemplar).
				NoValue(noSuccess))
	}
	return b
}
