// Package e2e proves the dashboards and rules against a real Prometheus 3
// server scraping a real llm-prober that probes the mock vLLM server driven
// into overload.
//
// Run from the repository root:
//
//	go test ./e2e/ -run TestEndToEnd -v -timeout 15m
//
// It builds cmd/llm-prober and Prometheus (from tools/go.mod), starts the
// mock vLLM server, a load generator, llm-prober and Prometheus on
// 127.0.0.1, and asserts that every dashboard query and every recording
// rule returns data and that the capacity alerts fire. It takes about two
// minutes after the binaries are built. `go test -short` skips it.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"

	"github.com/llm-prober/llm-prober/internal/promapi"
)

// Overload settings of the mock vLLM server: few KV blocks and a long
// prefill, so that the load below fills the KV cache, preempts, queues and
// is prefill-bound at the same time.
var mockArgs = []string{
	"--model", "mock-model",
	"--max-running", "64",
	"--kv-blocks", "40",
	"--block-size", "16",
	"--ttft", "600ms", "--ttft-jitter", "100ms",
	"--itl", "4ms", "--itl-jitter", "1ms",
	"--spec-tokens", "3", "--spec-acceptance", "0.7",
	"--prefix-cache-hit-rate", "0.3",
	"--faults", "rate_limit=0.03,stream_error=0.03",
}

// A second, unloaded mock whose latency is almost all prefill: the
// prefill_bound bottleneck (on the overloaded mock, preemptions add
// recompute time to decode and hide it).
var prefillMockArgs = []string{
	"--model", "mock-model",
	"--ttft", "1500ms", "--ttft-jitter", "100ms",
	"--itl", "2ms", "--itl-jitter", "1ms",
}

const (
	loadPromptWords = 20
	loadMaxTokens   = 150
	loadStart       = 6  // concurrent load workers at the start
	loadMax         = 40 // ... growing by one every loadStep
	loadStep        = 3 * time.Second

	// How long the test waits for every check to pass.
	checkTimeout = 4 * time.Minute
)

// The prober has a location, as in a multi-region setup: every probe series
// carries it and the server series do not, so every dashboard query and
// recording rule that joins the two is checked with the label present (the
// promtool tests cover probers without one).
const proberConfig = `global:
  interval: 4s
  timeout: 4s
  max_concurrent_probes: 8
  location: e2e-local
tracing:
  otlp_endpoint: "{{OTLP}}/v1/traces"
modules:
` + e2ekit.ChatModule + `    slo:
      ttft: 500ms
      tpot: 20ms
      e2el: 1s
      max_itl: 500ms
  completions:
    api: completions
    prompt: "The capital of France is"
    max_tokens: 8
    ignore_eos: true
    slo:
      ttft: 500ms
      e2el: 1s
  prompt_512:
    messages: [{role: user, content: "Summarise the text above."}]
    prompt_tokens: 512
    cache: cold
    max_tokens: 4
    ignore_eos: true
targets:
  - name: mock-overloaded
    url: "http://{{MOCK}}"
    model: mock-model
    backend: vllm
    modules: [chat, completions]
    labels:
      pod: vllm-overloaded-0
    server_metrics:
      enabled: true
      interval: 1s
    capacity:
      knee_requests_per_second: 1
      rate_window: 20s
  - name: mock-prefill
    url: "http://{{MOCK2}}"
    model: mock-model
    backend: vllm
    modules: [chat, prompt_512]
    labels:
      pod: vllm-prefill-0
    server_metrics:
      enabled: true
      interval: 1s
    capacity:
      knee_file: "{{KNEE}}"
      rate_window: 20s
`

// Prometheus 3: keep the classic _bucket series (the dashboards and rules
// use them) while also ingesting the native histograms. The prober's series
// carry a cluster label, as in a multi-cluster Prometheus, so that the
// dashboards' cluster variable has values and every query filters on it.
var promConfig = `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - {{RULES}}
  - {{ALERTS}}
scrape_configs:
` + proberScrapeJob + `  - job_name: dcgm-exporter
    static_configs:
      - targets: ["{{DCGM}}"]
`

// Alerts that must fire under the overload.
var expectFiring = []string{
	"LLMProberKVCacheNearFull",
	"LLMProberKVCacheExhaustionForecast",
	"LLMProberHighPreemptionRate",
	"LLMProberRequestsQueueing",
	"LLMProberLatencyBudgetBurn",
	"LLMProberGoodputBudgetBurn",
	"LLMProberCapacityHeadroomLow", // the overloaded mock serves past its knee of 1 req/s
}

// Bottleneck classifications that must show up for the two mocks.
var expectSeries = []string{
	`target_model:llm_prober_server_bottleneck:state{target="mock-prefill", bottleneck="prefill_bound"}`,
	`target_model:llm_prober_server_bottleneck:state{target="mock-overloaded", bottleneck=~"kv_cache_exhausted|preempting|queueing"}`,
	// Native histograms, as Prometheus parsed them from our protobuf.
	`histogram_count(llm_prober_inter_token_latency_seconds{target="mock-overloaded", module="chat"}) > 0`,
	`histogram_quantile(0.5, llm_prober_time_to_first_token_seconds{target="mock-prefill"}) > 0`,
}

// Alerts that must stay quiet: the prober itself is healthy.
var expectQuiet = []string{
	"LLMProberDown",
	"LLMProberProbeResultsAbsent",
	"LLMProberNoProbeResults",
	"LLMProberConfigReloadFailed",
	"LLMProberServerMetricsScrapeFailing",
}

// proberScrapeJob is e2ekit.ProberScrapeJob with a cluster label.
var proberScrapeJob = strings.Replace(e2ekit.ProberScrapeJob, `- targets: ["{{PROBER}}"]`,
	`- targets: ["{{PROBER}}"]
        labels: {cluster: e2e}`, 1)

// shortenAlerts rewrites the alerting rules for a test that lasts minutes:
// every `for:` becomes 2s, and the alert expressions' own windows shrink
// (10m -> 10s, 30m -> 1m, the forecast's "30 minutes old" guard to 1m and
// the capacity alerts' "10 minutes old" to 10s).
// Recording rules are loaded unchanged.
func shortenAlerts(src string) string {
	src = regexp.MustCompile(`(?m)^(\s+for:) \S+$`).ReplaceAllString(src, "$1 2s")
	src = strings.ReplaceAll(src, "[10m]", "[10s]")
	src = strings.ReplaceAll(src, "[30m]", "[1m]")
	src = strings.ReplaceAll(src, "offset 30m", "offset 1m")
	src = strings.ReplaceAll(src, "offset 10m", "offset 10s") // the capacity alerts' full-window guard
	return src
}

// shortenPanel shrinks a dashboard query's young-series guard (the KV
// forecast needs a series 30 minutes old) as shortenAlerts does the alerts'.
func shortenPanel(expr string) string {
	return strings.ReplaceAll(expr, "offset 30m", "offset 1m")
}

func TestEndToEnd(t *testing.T) {
	requireE2E(t)
	root := repoRoot(t)
	tmp := t.TempDir()
	proberBin := buildProber(t, tmp)
	promBin := prometheusBinary(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// 1. Mock vLLM, overloaded by a growing number of streaming clients.
	mockAddr, mock := startMock(t, proberBin, mockArgs...)
	load := startLoad(ctx, t, "http://"+mockAddr)
	waitOverloaded(t, "http://"+mockAddr+"/metrics", 60*time.Second)
	mock2Addr := testutil.FreeAddr(t)
	mock2 := testutil.Start(t, "mock-vllm-prefill", proberBin, append([]string{"mock-vllm", "--listen-address", mock2Addr}, prefillMockArgs...)...)
	testutil.WaitHTTP(t, mock2, "http://"+mock2Addr+"/v1/models", 30*time.Second)

	// 2. llm-prober probing it.
	proberAddr := testutil.FreeAddr(t)
	cfg := filepath.Join(tmp, "llm-prober.yml")
	otlp := newOTLPReceiver(t)
	// The prefill mock's knee comes from a sweep result, as bench writes it.
	knee := filepath.Join(tmp, "sweep.json")
	testutil.WriteFile(t, knee, `{"knee_goodput_percent": 99, "knee_request_rate": 60, "knee_achieved_request_rate": 50,
  "points": [{"kind": "rate", "request_rate": 60, "llm_prober_workload": "chat in=512 out=4"}]}`)
	testutil.WriteFile(t, cfg, strings.NewReplacer("{{MOCK}}", mockAddr, "{{MOCK2}}", mock2Addr, "{{OTLP}}", otlp.srv.URL, "{{KNEE}}", knee).Replace(proberConfig))
	prober := testutil.Start(t, "llm-prober", proberBin, "--config.file", cfg, "--web.listen-address", proberAddr)
	testutil.WaitHTTP(t, prober, "http://"+proberAddr+"/-/ready", 30*time.Second)

	// 3. Prometheus scraping llm-prober with the rules loaded.
	rulesSrc, err := os.ReadFile(filepath.Join(root, "alerts", "llm-prober-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	alertsSrc, err := os.ReadFile(filepath.Join(root, "alerts", "llm-prober-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rulesFile := filepath.Join(tmp, "rules.yml")
	alertsFile := filepath.Join(tmp, "alerts.yml")
	testutil.WriteFile(t, rulesFile, string(rulesSrc))
	testutil.WriteFile(t, alertsFile, shortenAlerts(string(alertsSrc)))
	promAddr := testutil.FreeAddr(t)
	promCfg := filepath.Join(tmp, "prometheus.yml")
	dcgm := dcgmExporter(t)
	testutil.WriteFile(t, promCfg, strings.NewReplacer("{{RULES}}", rulesFile, "{{ALERTS}}", alertsFile, "{{PROBER}}", proberAddr,
		"{{DCGM}}", strings.TrimPrefix(dcgm.URL, "http://")).Replace(promConfig))
	prom := testutil.Start(t, "prometheus", promBin,
		"--config.file", promCfg,
		"--storage.tsdb.path", filepath.Join(tmp, "tsdb"),
		"--web.listen-address", promAddr,
		"--enable-feature=exemplar-storage",
	)
	testutil.WaitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	api := promAPI{promapi.Client{Base: "http://" + promAddr}}
	promStart := time.Now()

	// 4. Poll until every check has passed once.
	queries := dashboardQueries(t, filepath.Join(root, "dashboards"))
	tvars := allDashboardVars(t, filepath.Join(root, "dashboards"))
	records := append(recordingRules(t, rulesSrc), expectSeries...)
	t.Logf("%d dashboard queries, %d recording rules", len(queries), len(records))

	var vars map[string]string
	passedQuery := map[string]bool{}
	passedRecord := map[string]bool{}
	fired := map[string]bool{}
	firedQuiet := map[string]bool{}
	lastErr := map[string]string{}
	exemplarsOK, tracedOK := false, false
	var dataSince time.Time
	deadline := time.Now().Add(checkTimeout)
	for {
		if prober.Exited() || prom.Exited() || mock.Exited() || mock2.Exited() {
			t.Fatal("a subprocess exited early")
		}
		alerts, err := api.Alerts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alerts {
			name := a.Labels["alertname"]
			if a.State == "firing" {
				if !fired[name] {
					t.Logf("%5.0fs firing: %s %v", time.Since(promStart).Seconds(), name, a.Labels)
				}
				fired[name] = true
				// The shortened for: durations let the "no data" alerts fire
				// before the first scrapes; count them only once data is in.
				if slices.Contains(expectQuiet, name) && dataSince != (time.Time{}) && time.Since(dataSince) > 10*time.Second {
					firedQuiet[name] = true
				}
			}
		}
		if vars == nil {
			if vars = templateValues(ctx, t, api, tvars); vars != nil {
				dataSince = time.Now()
			}
		}
		if vars != nil {
			for _, q := range queries {
				if passedQuery[q.key()] {
					continue
				}
				expr := substitute(shortenPanel(q.expr), vars)
				res, err := api.instant(ctx, expr)
				switch {
				case err != nil:
					lastErr[q.key()] = err.Error()
				case hasValue(res):
					passedQuery[q.key()] = true
				default:
					lastErr[q.key()] = "empty or NaN result for: " + expr
				}
			}
		}
		for _, r := range records {
			if passedRecord[r] {
				continue
			}
			res, err := api.instant(ctx, r)
			if err == nil && hasValue(res) {
				passedRecord[r] = true
			}
		}
		if !exemplarsOK || !tracedOK {
			ex, err := api.exemplars(ctx, `llm_prober_time_to_first_token_seconds_bucket`, promStart.Add(-time.Minute))
			if err == nil {
				// The exemplar's probe_id must resolve to the probe's details
				// at llm-prober's /logs?id=..., like the exemplar data link.
				for _, l := range ex {
					// Its trace_id is the trace of the span llm-prober exported.
					if tid := l["trace_id"]; len(tid) == 32 && otlp.has(tid) {
						tracedOK = true
					}
					if id := l["probe_id"]; id != "" && !exemplarsOK {
						resp, err := http.Get("http://" + proberAddr + "/logs?id=" + url.QueryEscape(id))
						if err == nil {
							resp.Body.Close()
							exemplarsOK = resp.StatusCode == http.StatusOK
						}
					}
				}
			}
		}
		missingAlerts := missing(expectFiring, fired)
		done := len(passedQuery) == len(queries) && len(passedRecord) == len(records) && len(missingAlerts) == 0 && exemplarsOK && tracedOK
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("checks finished after %s; %d requests sent by the load generator (%d workers)",
		time.Since(promStart).Round(time.Second), load.requests.Load(), load.workers.Load())

	// 5. Report.
	for _, q := range queries {
		if !passedQuery[q.key()] {
			t.Errorf("dashboard %s, panel %q, query %s never returned data: %s", q.dashboard, q.panel, q.refID, lastErr[q.key()])
		}
	}
	for _, r := range records {
		if !passedRecord[r] {
			t.Errorf("%s never returned data", r)
		}
	}
	for _, name := range missing(expectFiring, fired) {
		t.Errorf("alert %s never fired", name)
	}
	for name := range firedQuiet {
		t.Errorf("alert %s fired but the prober is healthy", name)
	}
	if !exemplarsOK {
		t.Errorf("no exemplar with a probe_id label on llm_prober_time_to_first_token_seconds_bucket that resolves at /logs?id=")
	}
	if !tracedOK {
		t.Errorf("no TTFT exemplar whose trace_id is the trace of a span llm-prober exported over OTLP")
	}
	groups, err := api.rules(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nrules := 0
	for _, g := range groups {
		for _, r := range g.Rules {
			nrules++
			if r.Health != "ok" || r.LastError != "" {
				t.Errorf("rule %s in group %s: health %q: %s", r.Name, g.Name, r.Health, r.LastError)
			}
		}
	}
	if nrules == 0 {
		t.Error("Prometheus loaded no rules")
	}
	var firedNames []string
	for n := range fired {
		firedNames = append(firedNames, n)
	}
	sort.Strings(firedNames)
	t.Logf("alerts that fired: %v", firedNames)
}

func missing(want []string, got map[string]bool) []string {
	var out []string
	for _, w := range want {
		if !got[w] {
			out = append(out, w)
		}
	}
	return out
}

// ---- load generator ----

type loadGen struct {
	requests atomic.Int64
	workers  atomic.Int64
}

// startLoad streams chat completions from a growing pool of workers until
// ctx is done.
func startLoad(ctx context.Context, t *testing.T, base string) *loadGen {
	g := &loadGen{}
	body := e2ekit.LoadBody(loadPromptWords, loadMaxTokens)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadMax}}
	var wg sync.WaitGroup
	worker := func() {
		defer wg.Done()
		e2ekit.Stream(ctx, client, base, body, 100*time.Millisecond, func(int) { g.requests.Add(1) })
	}
	add := func() { wg.Add(1); g.workers.Add(1); go worker() }
	for range loadStart {
		add()
	}
	go func() {
		tick := time.NewTicker(loadStep)
		defer tick.Stop()
		for g.workers.Load() < loadMax {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				add()
			}
		}
	}()
	t.Cleanup(func() {
		// ctx is cancelled by the test's deferred cancel before cleanups run.
		wg.Wait()
	})
	return g
}

// waitOverloaded waits until the mock reports waiting requests and a KV
// cache over 80%, so that every sample Prometheus takes is under overload.
func waitOverloaded(t *testing.T, metricsURL string, timeout time.Duration) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^vllm:(num_requests_waiting|kv_cache_usage_perc)\{[^}]*\} (\S+)$`)
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(metricsURL)
		if err == nil {
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			resp.Body.Close()
			vals := map[string]float64{}
			for _, m := range re.FindAllStringSubmatch(buf.String(), -1) {
				var v float64
				fmt.Sscan(m[2], &v)
				vals[m[1]] += v
			}
			last = fmt.Sprint(vals)
			if vals["num_requests_waiting"] > 0 && vals["kv_cache_usage_perc"] > 0.8 {
				t.Logf("mock overloaded: %v", vals)
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("mock vLLM not overloaded after %s (last: %s)", timeout, last)
}

// ---- dashboards ----

type dashQuery struct {
	dashboard, panel, refID, expr string
}

func (q dashQuery) key() string { return q.dashboard + "/" + q.panel + "/" + q.refID }

type jsonPanel struct {
	Title   string      `json:"title"`
	Panels  []jsonPanel `json:"panels"` // collapsed rows
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// dashboardQueries extracts every panel query of the generated dashboards.
func dashboardQueries(t *testing.T, dir string) []dashQuery {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in %s: %v", dir, err)
	}
	var out []dashQuery
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Panels []jsonPanel `json:"panels"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var walk func([]jsonPanel)
		walk = func(ps []jsonPanel) {
			for _, p := range ps {
				for _, tg := range p.Targets {
					if tg.Expr != "" {
						out = append(out, dashQuery{filepath.Base(f), p.Title, tg.RefID, tg.Expr})
					}
				}
				walk(p.Panels)
			}
		}
		walk(d.Panels)
	}
	return out
}

// templateValues resolves the dashboard variables as on a first import:
// every query variable runs its own label_values(...) query from the
// generated JSON (which must return values) and is left at its default,
// All, which Grafana sends as the variable's allValue (.*). It returns nil
// until every variable query has values.
func templateValues(ctx context.Context, t *testing.T, api promAPI, vars []templateVar) map[string]string {
	vals := map[string]string{
		"__rate_interval": "1m",
		"__range":         "5m",
		"slo_window":      "28d",
		"objective":       "0.99",
	}
	lv := regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)
	for _, v := range vars {
		if v.Type == "custom" { // left at its default on import
			var def string
			if err := json.Unmarshal(v.Current.Value, &def); err != nil {
				t.Fatalf("variable %s: default %s: %v", v.Name, v.Current.Value, err)
			}
			vals[v.Name] = def
			continue
		}
		if v.Type != "query" {
			continue
		}
		m := lv.FindStringSubmatch(v.Query.(string))
		if m == nil {
			t.Fatalf("variable %s: unsupported query %q", v.Name, v.Query)
		}
		got, err := api.labelValues(ctx, m[2], substitute(m[1], vals))
		if err != nil {
			t.Fatalf("variable %s: %v", v.Name, err)
		}
		if len(got) == 0 {
			return nil
		}
		if v.AllValue == "" {
			t.Fatalf("variable %s has no allValue", v.Name)
		}
		vals[v.Name] = v.AllValue
	}
	return vals
}

type templateVar struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Query    any    `json:"query"`
	AllValue string `json:"allValue"`
	Current  struct {
		Value json.RawMessage `json:"value"` // a string, or a list for multi-value variables
	} `json:"current"`
}

// allDashboardVars returns the template variables of every generated
// dashboard, each name once.
func allDashboardVars(t *testing.T, dir string) []templateVar {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	seen := map[string]bool{}
	var out []templateVar
	for _, f := range files {
		for _, v := range dashboardVars(t, f) {
			if !seen[v.Name] {
				seen[v.Name] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// dashboardVars returns the template variables of a generated dashboard.
func dashboardVars(t *testing.T, file string) []templateVar {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []templateVar `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	for i, v := range d.Templating.List {
		if q, ok := v.Query.(string); ok {
			d.Templating.List[i].Query = q
		} else if v.Type == "query" {
			t.Fatalf("%s: variable %s: query is not a string", file, v.Name)
		}
	}
	return d.Templating.List
}

var varRe = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`)

func substitute(expr string, vars map[string]string) string {
	return varRe.ReplaceAllStringFunc(expr, func(m string) string {
		name := strings.Trim(m, "${}")
		if v, ok := vars[name]; ok {
			return v
		}
		return m
	})
}

// ---- rules ----

// recordingRules returns one selector per recording rule (its name plus the
// labels it sets), e.g. target_model:llm_prober_slo_errors:ratio_rate5m{slo="goodput"}.
func recordingRules(t *testing.T, src []byte) []string {
	t.Helper()
	rules, err := e2ekit.ParseRules(src)
	if err != nil {
		t.Fatal(err)
	}
	// Labels set by other rules of the same name: a rule that sets none is
	// selected by excluding them (e.g. the latency SLI rule shares its name
	// with the goodput and availability rules, which set slo=...).
	siblings := map[string][]string{}
	for _, r := range rules {
		for k, v := range r.Labels {
			siblings[r.Record] = append(siblings[r.Record], fmt.Sprintf("%s!=%q", k, v))
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rules {
		if r.Record == "" {
			continue
		}
		var ls []string
		for k, v := range r.Labels {
			ls = append(ls, fmt.Sprintf("%s=%q", k, v))
		}
		if len(ls) == 0 {
			ls = siblings[r.Record]
		}
		sort.Strings(ls)
		sel := r.Record
		if len(ls) > 0 {
			sel += "{" + strings.Join(ls, ", ") + "}"
		}
		if !seen[sel] {
			seen[sel] = true
			out = append(out, sel)
		}
	}
	return out
}
