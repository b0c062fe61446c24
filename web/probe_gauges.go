package web

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/prober"
)

// probeRegistry holds what /probe answers: blackbox_exporter's
// probe_success and probe_duration_seconds, and a few probe_llm_* gauges
// for this one probe, as blackbox's modules add probe_http_* and
// probe_dns_*. None of them is served on /metrics, so a /probe scrape job
// never feeds the rules written for the scheduler's llm_prober_* series.
// A value the probe never measured is left out rather than set to 0.
func probeRegistry(res *prober.Result, end time.Time) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	gauge := func(name, help string, v float64) {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		g.Set(v)
		reg.MustRegister(g)
	}
	start := res.Start
	if start.IsZero() {
		start = end
	}
	gauge("probe_success", "Whether the probe succeeded: a complete, valid stream.", boolFloat(res.Success()))
	gauge("probe_duration_seconds", "How long the probe took, from sending the request to its end.", end.Sub(start).Seconds())
	if res.HTTPStatus != 0 {
		gauge("probe_llm_http_status_code", "HTTP status of the response, when one came.", float64(res.HTTPStatus))
	}
	if res.HasTTFT { // also on a failure after the first token (timeout_decode)
		gauge("probe_llm_time_to_first_token_seconds", "Time from sending the request to the first generated token (TTFT).", res.TTFT.Seconds())
	}
	if res.Success() {
		gauge("probe_llm_e2e_latency_seconds", "Time from sending the request to the end of the stream (E2EL).", res.E2EL.Seconds())
		if res.OutputTokens > 1 {
			gauge("probe_llm_time_per_output_token_seconds", "(E2EL - TTFT) / (output tokens - 1) (TPOT).", res.TPOT.Seconds())
		}
		gauge("probe_llm_output_tokens", "Output tokens: the server's usage when reported, else the content chunks.", float64(res.OutputTokens))
		gauge("probe_llm_prompt_tokens", "Prompt tokens in the server's usage (0 when not reported).", float64(res.PromptTokens))
		gauge("probe_llm_slo_met", "Whether the probe met every SLO configured on its module (a good probe).", boolFloat(res.Good))
		return reg
	}
	reason := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "probe_llm_failure_info",
		Help: "Why the probe failed, as the reason label (the reasons of llm_prober_probe_failures_total); absent on success."},
		[]string{"reason"})
	reason.WithLabelValues(string(res.Reason)).Set(1)
	reg.MustRegister(reason)
	return reg
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
