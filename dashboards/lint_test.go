package dashboards

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// dcgmPresence is the one query allowed without $job: whether Prometheus
// has any DCGM series at all.
const dcgmPresence = `count(DCGM_FI_DEV_GPU_UTIL) or vector(0)`

var rateWindowRe = regexp.MustCompile(`\b(?:rate|irate)\([^\[\)]*\[([^\]]+)\]`)

// lintPanel checks the rules issue 17 added: graphs draw rates over
// $__rate_interval, and panels with exemplars link their trace_id.
func lintPanel(t *testing.T, where string, p jsonPanel) {
	t.Helper()
	exemplars := false
	for _, tg := range p.Targets {
		exemplars = exemplars || tg.Exemplar
		if tg.Instant {
			continue // stats and tables may summarise the dashboard range
		}
		for _, m := range rateWindowRe.FindAllStringSubmatch(tg.Expr, -1) {
			if m[1] != "$__rate_interval" {
				t.Errorf("%s: a drawn rate over [%s], not $__rate_interval: %s", where, m[1], tg.Expr)
			}
		}
	}
	if exemplars && !hasTraceLink(p) {
		t.Errorf("%s: exemplars without a trace_id link", where)
	}
}

func hasTraceLink(p jsonPanel) bool {
	for _, o := range p.FieldConfig.Overrides {
		if o.Matcher.ID == "byName" && o.Matcher.Options == traceIDLabel {
			for _, pr := range o.Properties {
				if pr.ID == "links" && strings.Contains(string(pr.Value), "${tracing}") {
					return true
				}
			}
		}
	}
	return false
}

// TestVariables: All matches .+ (a missing label never matches), and the
// tracing data-source variable exists for the trace links.
//
// The one exception is location, whose All is .*: a prober without
// --probe.location exports no location label, and All must keep its
// series (probe series carry the label only when it is set; the server
// series, never, and withLocation never filters those on it); cluster's
// too, as a Prometheus of one cluster has no such label.
func TestVariables(t *testing.T) {
	for _, name := range jsonFiles(t) {
		raw, _ := os.ReadFile(name)
		var d struct {
			Templating struct {
				List []struct {
					Name       string `json:"name"`
					Type       string `json:"type"`
					IncludeAll bool   `json:"includeAll"`
					AllValue   string `json:"allValue"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		tracing := false
		for _, v := range d.Templating.List {
			want := ".+"
			if v.Name == "location" || v.Name == "cluster" {
				want = ".*"
			}
			if v.IncludeAll && v.AllValue != want {
				t.Errorf("%s: variable %s: All is %q, want %s", name, v.Name, v.AllValue, want)
			}
			tracing = tracing || (v.Name == "tracing" && v.Type == "datasource")
		}
		if !tracing {
			t.Errorf("%s: no tracing data-source variable", name)
		}
	}
}

var (
	selectorRe = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}`)
	byClauseRe = regexp.MustCompile(`\bby \(([^)]*)\)`)
)

// TestLocation: every probe-series selector filters on $location and no
// server-series selector does (they carry no location, so a selected
// location would empty them); a query over probe series alone that
// aggregates by target keeps location, so that two locations are never
// summed into one line. The configured SLO thresholds are the same from
// every location and may be merged, and so may the GPUs of a server.
func TestLocation(t *testing.T) {
	for _, name := range jsonFiles(t) {
		raw, _ := os.ReadFile(name)
		var d jsonDash
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		hasVar := false
		for _, v := range d.Templating.List {
			hasVar = hasVar || v.Name == "location"
		}
		if !hasVar {
			t.Errorf("%s: no location variable", name)
		}
		walk := func(ps []jsonPanel) {
			for _, p := range ps {
				for _, tg := range p.Targets {
					probeOnly, thresholdsOnly := true, true
					for _, m := range selectorRe.FindAllStringSubmatch(tg.Expr, -1) {
						if !strings.Contains(m[2], `target=~"$target"`) {
							continue // process-wide series, DCGM
						}
						probe := isProbeSeries(m[1])
						probeOnly = probeOnly && probe
						thresholdsOnly = thresholdsOnly && m[1] == "llm_prober_slo_seconds"
						filtered := strings.Contains(m[2], `location=~"$location"`)
						switch {
						case probe && !filtered:
							t.Errorf("%s: panel %q: %s does not filter on $location", name, p.Title, m[0])
						case !probe && strings.Contains(m[2], "location"):
							t.Errorf("%s: panel %q: server series %s filtered on location, which it never carries", name, p.Title, m[0])
						}
					}
					// GPU panels read llm_prober_target_info only to name a
					// server's GPUs, which are the same from every location.
					if !probeOnly || thresholdsOnly || strings.Contains(tg.Expr, "DCGM_") {
						continue
					}
					for _, m := range byClauseRe.FindAllStringSubmatch(tg.Expr, -1) {
						if strings.Contains(m[1], "target") && !strings.Contains(m[1], "location") {
							t.Errorf("%s: panel %q: probe series aggregated by (%s) without location: %s", name, p.Title, m[1], tg.Expr)
						}
					}
				}
			}
		}
		walk(d.Panels)
	}
}

func TestIsProbeSeries(t *testing.T) {
	for name, want := range map[string]bool{
		"llm_prober_probes_total":                               true,
		"llm_prober_time_to_first_token_seconds_bucket":         true,
		"llm_prober_target_info":                                true,
		"target_model:llm_prober_slo_errors:ratio_rate5m":       true,
		"llm_prober_server_time_to_first_token_seconds_sum":     false,
		"target_model:llm_prober_server_bottleneck:state":       false,
		"llm_prober_capacity_headroom_ratio":                    false,
		"target_model:llm_prober_capacity_time_to_knee:seconds": false,
		"DCGM_FI_DEV_GPU_UTIL":                                  false,
		"llm_prober:slo_error_budget:ratio":                     false,
	} {
		if got := isProbeSeries(name); got != want {
			t.Errorf("isProbeSeries(%q) = %v, want %v", name, got, want)
		}
	}
}
