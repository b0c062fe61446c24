// Package alertmanager checks alerts/alertmanager-example.yml with
// Alertmanager's own config package. It lives in tools/go.mod so that the
// product's go.mod never depends on Alertmanager.
package alertmanager

import (
	"path/filepath"
	"testing"

	amcommoncfg "github.com/prometheus/alertmanager/config/common"
	"github.com/prometheus/alertmanager/pkg/labels"

	"github.com/prometheus/alertmanager/config"
	"github.com/prometheus/alertmanager/dispatch"
	"github.com/prometheus/common/model"
)

// Label sets as the shipped rules produce them (alerts/tests has the
// promtool tests that pin these labels).
var (
	proberDown = model.LabelSet{"alertname": "LLMProberDown", "severity": "critical", "job": "llm-prober", "instance": "p:9775"}

	burnPage = model.LabelSet{"alertname": "LLMProberGoodputBudgetBurn", "severity": "critical", "long": "1h", "short": "5m",
		"slo": "goodput", "job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
	burnTicket = model.LabelSet{"alertname": "LLMProberGoodputBudgetBurn", "severity": "warning", "long": "1d", "short": "2h",
		"slo": "goodput", "job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
	latencyTicket = model.LabelSet{"alertname": "LLMProberLatencyBudgetBurn", "severity": "warning", "long": "1d", "short": "2h",
		"slo": "ttft", "job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
	unreachable = model.LabelSet{"alertname": "LLMProberTargetUnreachable", "severity": "critical",
		"job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
	probesFailing = model.LabelSet{"alertname": "LLMProberProbesFailing", "severity": "warning",
		"job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m", "module": "chat"}
	scrapeFailing = model.LabelSet{"alertname": "LLMProberServerMetricsScrapeFailing", "severity": "warning",
		"job": "llm-prober", "instance": "p:9775", "target": "vllm-a"}
	kvFull = model.LabelSet{"alertname": "LLMProberKVCacheNearFull", "severity": "warning",
		"job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
	forecast = model.LabelSet{"alertname": "LLMProberKVCacheExhaustionForecast", "severity": "info",
		"job": "llm-prober", "instance": "p:9775", "target": "vllm-a", "model": "m"}
)

// with returns a copy of ls with the given labels changed.
func with(ls model.LabelSet, kv ...string) model.LabelSet {
	out := ls.Clone()
	for i := 0; i+1 < len(kv); i += 2 {
		out[model.LabelName(kv[i])] = model.LabelValue(kv[i+1])
	}
	return out
}

// inhibits applies Alertmanager's inhibition semantics for one rule: the
// target matches the target matchers, the source the source matchers, the
// equal labels have the same value (a label missing on both sides is
// equal), and an alert never inhibits itself.
func inhibits(r amcommoncfg.InhibitRule, source, target model.LabelSet) bool {
	if source.Equal(target) {
		return false
	}
	if !labels.Matchers(r.SourceMatchers).Matches(source) || !labels.Matchers(r.TargetMatchers).Matches(target) {
		return false
	}
	for _, l := range r.Equal {
		if source[model.LabelName(l)] != target[model.LabelName(l)] {
			return false
		}
	}
	return true
}

func muted(rules []amcommoncfg.InhibitRule, source, target model.LabelSet) bool {
	for _, r := range rules {
		if inhibits(r, source, target) {
			return true
		}
	}
	return false
}

func TestExampleInhibitions(t *testing.T) {
	cfg, err := config.LoadFile(filepath.Join("..", "..", "alerts", "alertmanager-example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.InhibitRules) == 0 {
		t.Fatal("no inhibit_rules")
	}
	cases := []struct {
		name           string
		source, target model.LabelSet
		want           bool
	}{
		{"dead prober silences its SLO pages", proberDown, burnPage, true},
		{"dead prober silences its probe alerts", proberDown, probesFailing, true},
		{"dead prober silences its capacity alerts", proberDown, kvFull, true},
		{"dead prober silences its targets' unreachable pages", proberDown, unreachable, true},
		{"dead prober silences its alerts from a location", proberDown, with(burnPage, "location", "eu"), true},
		{"dead prober silences its stuck-probe tickets", proberDown, with(probesFailing, "alertname", "LLMProberNoProbeResults"), true},
		{"dead prober does not silence another prober's alerts", proberDown, with(burnPage, "instance", "q:9775"), false},
		{"dead prober does not silence another cluster's alerts", with(proberDown, "cluster", "eu"), with(burnPage, "cluster", "us"), false},
		{"dead prober silences its alerts in its cluster", with(proberDown, "cluster", "eu"), with(burnPage, "cluster", "eu"), true},
		{"dead prober does not silence itself", proberDown, proberDown, false},
		{"dead prober silences 'no results at all'", proberDown, model.LabelSet{"alertname": "LLMProberProbeResultsAbsent", "severity": "warning"}, true},
		{"unreachable target silences its burn pages", unreachable, burnPage, true},
		{"unreachable target silences its failing probes", unreachable, probesFailing, true},
		{"unreachable target silences its metrics scrape", unreachable, scrapeFailing, true},
		{"unreachable target does not silence other targets", unreachable, with(burnPage, "target", "vllm-b"), false},
		{"page silences the ticket of the same SLO", burnPage, burnTicket, true},
		{"page does not silence another SLO's ticket", burnPage, latencyTicket, false},
		{"ticket does not silence the page", burnTicket, burnPage, false},
		{"saturated KV silences its forecast", kvFull, forecast, true},
		{"forecast does not silence the saturation", forecast, kvFull, false},
	}
	for _, c := range cases {
		if got := muted(cfg.InhibitRules, c.source, c.target); got != c.want {
			t.Errorf("%s: muted = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestExampleRoutes: critical pages, warning opens a ticket, info goes
// nowhere, as docs/alerting.md's severity policy says.
func TestExampleRoutes(t *testing.T) {
	cfg, err := config.LoadFile(filepath.Join("..", "..", "alerts", "alertmanager-example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for sev, want := range map[string]string{"critical": "page", "warning": "ticket", "info": "null"} {
		got := ""
		for _, r := range cfg.Route.Routes {
			if labels.Matchers(r.Matchers).Matches(model.LabelSet{"severity": model.LabelValue(sev)}) {
				got = r.Receiver
				break
			}
		}
		if got != want {
			t.Errorf("severity %s routes to %q, want %q", sev, got, want)
		}
	}
}

// TestExampleGrouping: one target's burns of every SLO and window, seen
// by every prober and location, arrive as one page; its capacity alerts as
// one ticket; another target or cluster is another notification (issue 23).
func TestExampleGrouping(t *testing.T) {
	cfg, err := config.LoadFile(filepath.Join("..", "..", "alerts", "alertmanager-example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	root := dispatch.NewRoute(cfg.Route, nil)
	// group names the receiver and the group labels Alertmanager gives ls.
	group := func(ls model.LabelSet) string {
		routes := root.Match(ls)
		if len(routes) != 1 {
			t.Fatalf("%v matches %d routes", ls, len(routes))
		}
		g := model.LabelSet{}
		for l := range routes[0].RouteOpts.GroupBy {
			if v, ok := ls[l]; ok {
				g[l] = v
			}
		}
		return routes[0].RouteOpts.Receiver + g.String()
	}
	availabilityPage := with(burnPage, "alertname", "LLMProberAvailabilityBudgetBurn", "slo", "availability")
	latencyPage := with(burnPage, "alertname", "LLMProberLatencyBudgetBurn", "slo", "ttft", "location", "eu")
	slowPage := with(burnPage, "long", "6h", "short", "30m", "instance", "q:9775")
	queueing := with(kvFull, "alertname", "LLMProberRequestsQueueing")
	for _, ls := range []model.LabelSet{availabilityPage, latencyPage, slowPage, unreachable} {
		if got, want := group(ls), group(burnPage); got != want {
			t.Errorf("%s goes to %s, not with the goodput page %s", ls["alertname"], got, want)
		}
	}
	if got, want := group(queueing), group(kvFull); got != want {
		t.Errorf("queueing goes to %s, not with the KV ticket %s", got, want)
	}
	for _, ls := range []model.LabelSet{with(burnPage, "target", "vllm-b"), with(burnPage, "cluster", "eu")} {
		if group(ls) == group(burnPage) {
			t.Errorf("%v shares the page of %v", ls, burnPage)
		}
	}
}
