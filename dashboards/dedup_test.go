package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestServerSeriesOncePerServer evaluates every panel query that reads the
// re-exported server series (llm_prober_server_*) with promtool, over the
// same server seen by one prober (instance a) and by two (a and b, which
// re-export identical series, as probers in two locations or HA replicas
// do): the answers must be the same. A sum over instances without a
// deduplication step counts the server once per prober. Needs PROMTOOL
// (scripts/test.sh sets it).
func TestServerSeriesOncePerServer(t *testing.T) {
	promtool := promtoolPath(t)
	type query struct{ where, expr string }
	var queries []query
	metrics := map[string]bool{}
	for _, name := range jsonFiles(t) {
		raw, _ := os.ReadFile(name)
		var d jsonDash
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				server := false
				for _, m := range selectorRe.FindAllStringSubmatch(tg.Expr, -1) {
					server = server || strings.HasPrefix(m[1], "llm_prober_server_")
				}
				if !server || strings.Contains(tg.Expr, "DCGM_") {
					continue // recorded series are covered by alerts/tests
				}
				for _, m := range selectorRe.FindAllStringSubmatch(tg.Expr, -1) {
					metrics[m[1]] = true
				}
				queries = append(queries, query{name + ": " + p.Title, tg.Expr})
			}
		}
	}
	if len(queries) < 20 {
		t.Fatalf("only %d server-series queries found", len(queries))
	}

	vars := func(instance string) *strings.Replacer {
		return strings.NewReplacer("$__rate_interval", "2m", "$__range", "10m",
			"$job", ".+", "$instance", instance, "$target", ".+", "$model", ".+", "$location", ".*", "$cluster", ".*")
	}
	one, all := vars("a"), vars(".+")
	var tests []exprTest
	for _, q := range queries {
		a := "max without (instance) (\n" + one.Replace(q.expr) + "\n)"
		b := "max without (instance) (\n" + all.Replace(q.expr) + "\n)"
		if strings.Contains(a+b, "$") {
			t.Fatalf("%s: unresolved variable in %s", q.where, q.expr)
		}
		comment := "# " + strings.ReplaceAll(q.where, "\n", " ") + "\n"
		for _, expr := range []string{
			// Something to compare: one prober's view is not empty.
			"absent(" + a + ")",
			// The same series ...
			"(" + b + " unless " + a + ") or (" + a + " unless " + b + ")",
			// ... with the same values.
			"abs(" + b + " - " + a + ") > 1e-9 * abs(" + a + ")",
		} {
			tests = append(tests, exprTest{Expr: comment + expr, EvalTime: "30m", ExpSamples: []promSample{}})
		}
	}

	type series struct {
		Series string `json:"series"`
		Values string `json:"values"`
	}
	var input []series
	names := make([]string, 0, len(metrics))
	for m := range metrics {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		instances := []string{"a", "b"}
		if !strings.HasPrefix(m, "llm_prober_server_") {
			instances = []string{"a"} // probe series: each prober has its own
		}
		extra := [][]string{{}}
		switch {
		case strings.HasSuffix(m, "_bucket"):
			extra = [][]string{{`le="1"`}, {`le="10"`}, {`le="+Inf"`}}
		case strings.Contains(m, "finished") || strings.Contains(m, "by_reason"):
			extra = [][]string{{`reason="stop"`}, {`reason="length"`}}
		case strings.Contains(m, "per_position"):
			extra = [][]string{{`position="0"`}, {`position="1"`}}
		case m == "llm_prober_slo_seconds":
			extra = [][]string{{`slo="ttft"`}, {`slo="tpot"`}, {`slo="e2el"`}}
		}
		for _, inst := range instances {
			for engine := 1; engine <= 2; engine++ {
				for i, x := range extra {
					labels := append([]string{`job="llm-prober"`, fmt.Sprintf("instance=%q", inst),
						`target="t"`, `model="m"`, `backend="vllm"`, fmt.Sprintf(`engine="%d"`, engine-1)}, x...)
					// Cumulative buckets grow with le; engines differ.
					k := engine * (i + 1)
					input = append(input, series{
						Series: m + "{" + strings.Join(labels, ", ") + "}",
						Values: fmt.Sprintf("%d+%dx60", k, k),
					})
				}
			}
		}
	}

	runExprTests(t, promtool, "dedup_test.yml", input, tests)
}

// promtoolPath is $PROMTOOL; without it the test is skipped.
func promtoolPath(t *testing.T) string {
	t.Helper()
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		t.Skip("set PROMTOOL to a promtool binary (scripts/test.sh does)")
	}
	return promtool
}

// exprTest is one of promtool's promql_expr_test entries; promSample,
// one of its expected samples.
type exprTest struct {
	Expr       string       `json:"expr"`
	EvalTime   string       `json:"eval_time"`
	ExpSamples []promSample `json:"exp_samples"`
}

type promSample struct {
	Labels string  `json:"labels"`
	Value  float64 `json:"value"`
}

// runExprTests runs promtool's PromQL unit tests on series (input
// series, one sample a minute) and tests, written as name under a
// temporary directory; a failure shows the failing expressions.
func runExprTests(t *testing.T, promtool, name string, series, tests any) {
	t.Helper()
	file := map[string]any{
		"rule_files": []string{}, "evaluation_interval": "1m",
		"tests": []any{map[string]any{"interval": "1m", "input_series": series, "promql_expr_test": tests}},
	}
	raw, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, failures(string(out)))
	}
}

var failedExprRe = regexp.MustCompile(`(?m)^\s*expr: "# ([^"\\]*)`)

// failures shortens promtool's report to the failing panels, and the
// first failure in full.
func failures(out string) string {
	seen := map[string]bool{}
	var panels []string
	for _, m := range failedExprRe.FindAllStringSubmatch(out, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			panels = append(panels, m[1])
		}
	}
	if len(out) > 4000 {
		out = out[:4000] + "..."
	}
	return "failing panels:\n  " + strings.Join(panels, "\n  ") + "\n\n" + out
}
