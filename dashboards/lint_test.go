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
			if v.IncludeAll && v.AllValue != ".+" {
				t.Errorf("%s: variable %s: All is %q, want .+", name, v.Name, v.AllValue)
			}
			tracing = tracing || (v.Name == "tracing" && v.Type == "datasource")
		}
		if !tracing {
			t.Errorf("%s: no tracing data-source variable", name)
		}
	}
}
