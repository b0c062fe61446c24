package dashboards

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/common"
)

// withinSLO is the share of the server's own requests (all traffic, not
// only the probes) whose latency was within the configured SLO, from the
// re-exported classic histogram: histogram_fraction interpolates inside
// the bucket that holds the threshold (exact when the SLO is a bucket
// bound). The threshold is the strictest SLO of the selected modules;
// select one target for its own.
func withinSLO(metric, slo, window string) string {
	return e(fmt.Sprintf(`histogram_fraction(0, scalar(min(llm_prober_slo_seconds{SEL, slo=%q})),
  sum by (le, target, model) (rate(%s_bucket{SEL}[%s])))`, slo, metric, window))
}

// probeGoodput is the probes' goodput over window, per location, for
// comparison: the server's attainment has no location, so a location
// whose probes fall below it and the others' is looking at its network.
func probeGoodput(window string) string {
	return e(`sum by (location, target, model) (rate(llm_prober_probes_good_total{SEL}[` + window + `]))
/ sum by (location, target, model) (rate(llm_prober_probes_total{SEL}[` + window + `]))`)
}

var attainment = []struct{ metric, slo, name string }{
	{"llm_prober_server_time_to_first_token_seconds", "ttft", "TTFT"},
	{"llm_prober_server_time_per_output_token_seconds", "tpot", "TPOT"},
	{"llm_prober_server_e2e_request_latency_seconds", "e2el", "E2EL"},
}

// serverTraffic adds the "all requests" row to the SLO overview: the
// server's whole traffic beside the probes' sample.
func serverTraffic(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	var rangeQs, rateQs []q
	for _, a := range attainment {
		rangeQs = append(rangeQs, q{expr: withinSLO(a.metric, a.slo, "$__range"), legend: "all requests " + a.name + " {{target}} {{model}}", instant: true})
		rateQs = append(rateQs, q{expr: withinSLO(a.metric, a.slo, "$__rate_interval"), legend: "all requests " + a.name + " {{target}} {{model}}"})
	}
	rangeQs = append(rangeQs, q{expr: probeGoodput("$__range"), legend: "probes SLO attainment {{target}} {{model}} {{location}}", instant: true})
	rateQs = append(rateQs, q{expr: probeGoodput("$__rate_interval"), legend: "probes SLO attainment {{target}} {{model}} {{location}}"})
	return b.WithRow(p.row("All requests (the server's own histograms) vs the probes")).
		WithPanel(p.stat("Requests within SLO (time range)",
			"Share of ALL the server's requests in the dashboard range whose TTFT, TPOT and E2E latency were within the configured SLO (histogram_fraction over the re-exported llm_prober_server_* histograms; the threshold is the strictest llm_prober_slo_seconds of the selected modules, interpolated inside its bucket), next to the probes' goodput. Probes are a sample; this is every request. Needs a backend that exports these histograms (vLLM, SGLang, TensorRT-LLM; TGI has no TTFT).",
			"percentunit", 24, 5, common.BigValueTextModeValueAndName, nil,
			thresholds("red", 0.95, "orange", 0.99, "green"), rangeQs...).
			NoValue("No SLO configured for the selected modules, or the server exports no latency histograms")).
		WithPanel(p.ts("SLO attainment: all requests vs probes",
			"Per interval, the share of all the server's requests within each latency SLO (from its own histograms) and the probes' goodput. A probe goodput well below the servers' attainment means the probes see something the server does not count (network, proxy, the probe's prompt); the other way round, the probes are too few or too light to see what real traffic suffers.",
			"percentunit", 24, 8, tsOpts{max: one}, rateQs...))
}
