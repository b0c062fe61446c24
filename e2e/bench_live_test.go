package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/promapi"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// benchLivePromConfig scrapes bench with the daemon's own scrape job (a
// cluster label, as in e2e_test.go, for the dashboards' cluster variable).
var benchLivePromConfig = `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
` + proberScrapeJob

// A benchmark served live: a real Prometheus scrapes `bench
// --web.listen-address`, and the shipped target dashboard's own variable
// queries list the run's label as a target and its panels over the probe
// families bench serves (TTFT, E2EL, probe counts, ...) draw data, with
// no edit to the dashboard.
func TestBenchLiveOnShippedDashboard(t *testing.T) {
	requireE2E(t)
	root := repoRoot(t)
	tmp := t.TempDir()
	proberBin := buildProber(t, tmp)
	promBin := prometheusBinary(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	mockAddr, mock := startMock(t, proberBin, "--ttft", "20ms", "--itl", "5ms")
	benchAddr := testutil.FreeAddr(t)
	bench := testutil.Start(t, "bench", proberBin, "bench", "--url", "http://"+mockAddr, "--request-rate", "10",
		"--duration", "10m", "--input-tokens", "32", "--output-tokens", "8", "--goodput", "ttft:1000 e2el:5000",
		"--progress", "off", "--label", "bench-e2e", "--web.listen-address", benchAddr)
	testutil.WaitHTTP(t, bench, "http://"+benchAddr+"/metrics", 60*time.Second)

	promAddr := testutil.FreeAddr(t)
	promCfg := filepath.Join(tmp, "prometheus.yml")
	testutil.WriteFile(t, promCfg, strings.ReplaceAll(benchLivePromConfig, "{{PROBER}}", benchAddr))
	prom := testutil.Start(t, "prometheus", promBin, "--config.file", promCfg,
		"--storage.tsdb.path", filepath.Join(tmp, "tsdb"), "--web.listen-address", promAddr)
	testutil.WaitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	api := promAPI{promapi.Client{Base: "http://" + promAddr}}

	dash := filepath.Join(root, "dashboards", "llm-prober-target.json")
	var queries []dashQuery
	for _, q := range dashboardQueries(t, filepath.Join(root, "dashboards")) {
		if q.dashboard == "llm-prober-target.json" && servedByBench(q.expr) {
			queries = append(queries, q)
		}
	}
	// The panels that must draw: latency distributions and probe counts
	// (TTFT by prompt length needs a module's prompt_tokens, which a bench
	// run has not).
	mustRe := regexp.MustCompile(`llm_prober_(time_to_first_token_seconds|e2e_latency_seconds)_bucket|llm_prober_probes_total`)
	must := func(expr string) bool {
		return mustRe.MatchString(expr) && !strings.Contains(expr, "llm_prober_prompt_length_tokens")
	}
	var required int
	for _, q := range queries {
		if must(q.expr) {
			required++
		}
	}
	if required < 2 {
		t.Fatalf("only %d target-dashboard panels over TTFT, E2EL or probe counts: the dashboard changed?", required)
	}
	passed := map[string]bool{}
	lastErr := map[string]string{}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if bench.Exited() || prom.Exited() || mock.Exited() {
			t.Fatalf("a subprocess exited early; bench:\n%s", bench.Log())
		}
		vars, targets := benchDashboardVars(ctx, t, api, dashboardVars(t, dash))
		if slices.Contains(targets, "bench-e2e") {
			vars["target"] = "bench-e2e"
			for _, q := range queries {
				if passed[q.key()] {
					continue
				}
				v, err := api.instant(ctx, substitute(q.expr, vars))
				switch {
				case err != nil:
					t.Fatalf("%s: %v\n%s", q.key(), err, q.expr)
				case hasValue(v):
					passed[q.key()] = true
				default:
					lastErr[q.key()] = "no data"
				}
			}
			done := 0
			for _, q := range queries {
				if passed[q.key()] && must(q.expr) {
					done++
				}
			}
			if done == required {
				t.Logf("%d of %d target-dashboard panels over the families bench serves drew data (%d required ones all)",
					len(passed), len(queries), required)
				for _, q := range queries {
					if !passed[q.key()] {
						t.Logf("no data (none required): %s", q.key())
					}
				}
				return
			}
		}
		if time.Now().After(deadline) {
			var missing []string
			for _, q := range queries {
				if !passed[q.key()] && must(q.expr) {
					missing = append(missing, q.key()+": "+lastErr[q.key()])
				}
			}
			t.Fatalf("the target variable lists %v; required panels without data:\n%s", targets, strings.Join(missing, "\n"))
		}
		time.Sleep(2 * time.Second)
	}
}

// servedByBench reports whether expr reads only families bench's listener
// serves (probe families, target info, its own progress), not the
// server's re-exported metrics or recording rules.
func servedByBench(expr string) bool {
	names := regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`).FindAllString(expr, -1)
	found := false
	for _, n := range names {
		switch {
		case strings.Contains(n, ":"), strings.HasPrefix(n, "llm_prober_server_"), strings.HasPrefix(n, "DCGM_"):
			return false
		case strings.HasPrefix(n, "llm_prober_"):
			found = true
		}
	}
	return found
}

// benchDashboardVars sets every variable as on a first import (its
// default: All, sent as its allValue), and returns what the dashboard's
// own target variable query lists. A bench run has no location: the
// location variable has no values, and All (.*) still matches its
// series, as in Grafana.
func benchDashboardVars(ctx context.Context, t *testing.T, api promAPI, vars []templateVar) (map[string]string, []string) {
	vals := map[string]string{"__rate_interval": "1m", "__range": "5m", "slo_window": "28d", "objective": "0.99"}
	var targetQuery string
	for _, v := range vars {
		if v.Type == "query" {
			vals[v.Name] = v.AllValue
			if v.Name == "target" {
				targetQuery = v.Query.(string)
			}
		}
	}
	m := regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`).FindStringSubmatch(targetQuery)
	if m == nil {
		t.Fatalf("target variable: unsupported query %q", targetQuery)
	}
	targets, err := api.labelValues(ctx, m[2], substitute(m[1], vals))
	if err != nil {
		t.Fatal(err)
	}
	return vals, targets
}
