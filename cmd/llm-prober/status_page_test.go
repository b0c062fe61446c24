package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// The status page puts a failing target before a healthy one, with its
// error message, counts the failing ones and can show only those, and
// shows, per (target, module), the hour's ratios, TTFT, TPOT and E2EL
// percentiles with their SLOs, the server's KV cache, queue and
// preemptions from its own /metrics, inline trends, a refresh, and the
// build's version.
func TestStatusPage(t *testing.T) {
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "engine dead", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	good := mockServer(t)
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	body := fmt.Sprintf(configTemplate, fmt.Sprintf(
		"  - {name: a-healthy, url: %q, model: mock-model, modules: [chat], server_metrics: {enabled: true}}\n"+
			"  - {name: z-broken, url: %q, model: mock-model, modules: [chat]}\n", good, broken.URL))
	testutil.WriteFile(t, cfg, strings.Replace(body, "    ignore_eos: true\n", "    ignore_eos: true\n    slo: {ttft: 500ms, tpot: 40ms, e2el: 3s}\n", 1))
	p := startProber(t, "--config.file="+cfg)
	p.waitFor(15*time.Second, func() bool {
		return p.metric(`llm_prober_probes_total{model="mock-model",module="chat",target="a-healthy"}`) >= 2 &&
			p.metric(`llm_prober_probes_total{model="mock-model",module="chat",target="z-broken"}`) >= 2 &&
			p.metric(`llm_prober_server_kv_cache_usage_ratio{`) >= 0
	})
	// Server signals are read as probes finish: wait for one after the
	// first scrape.
	kv := regexp.MustCompile(`<td>\d+\.\d%<svg class="spark"`)
	var code int
	var page string
	p.waitFor(10*time.Second, func() bool {
		code, page = p.get("/")
		return kv.MatchString(page)
	})
	if code != http.StatusOK {
		t.Fatalf("HTTP %d", code)
	}
	broke, healthy := strings.Index(page, "<b>z-broken</b>"), strings.Index(page, "<b>a-healthy</b>")
	if broke < 0 || healthy < 0 || broke > healthy {
		t.Fatalf("the failing target is not listed first (at %d, healthy at %d):\n%s", broke, healthy, page)
	}
	brokenRow, healthyRow := page[broke:healthy], page[healthy:strings.Index(page, "</table>")]
	for _, want := range []string{`<span class="fail">http_5xx</span><div class="fail">HTTP 500: engine dead</div>`, `<td class="fail">0.0%`} {
		if !strings.Contains(brokenRow, want) {
			t.Errorf("failing row lacks %q:\n%s", want, brokenRow)
		}
	}
	for _, re := range []string{
		`<td class="ok">100\.0%<div class="dim">\d+ / \d+</div><svg class="spark"`, // success ratio and trend
		`\d+\.\d ms / \d+\.\d ms<div class="dim">SLO 500ms</div><svg`,              // TTFT p50 / p99, SLO, trend
		`\d+\.\d ms / \d+\.\d ms<div class="dim">SLO 40ms</div>`,                   // TPOT
		`\d+\.\d ms / \d+\.\d ms<div class="dim">SLO 3s</div>`,                     // E2EL, measured
		`<td>\d+\.\d%<svg class="spark"`,                                           // KV cache from the server
		`<td>\d+ waiting<div class="dim">\d+ running</div><svg`,                    // queue
	} {
		if !regexp.MustCompile(re).MatchString(healthyRow) {
			t.Errorf("healthy row does not match %s:\n%s", re, healthyRow)
		}
	}
	if !strings.Contains(brokenRow, `<td class="dim">—</td><td class="dim">—</td><td class="dim">—</td>`) {
		t.Errorf("a target without server metrics should show — for them:\n%s", brokenRow)
	}
	if !strings.Contains(page, "1 of 2 failing") {
		t.Error("no count of the failing (target, module) pairs")
	}
	_, failing := p.get("/?failing=1")
	if !strings.Contains(failing, "<b>z-broken</b>") || strings.Contains(failing, "<b>a-healthy</b>") || !strings.Contains(failing, `<a href="/">show all</a>`) {
		t.Errorf("/?failing=1 does not show the failing target only:\n%s", failing)
	}
	if _, recent, _ := strings.Cut(failing, "<h2>Recent probes</h2>"); !strings.Contains(recent, "failed: http_5xx") || strings.Contains(recent, "succeeded") {
		t.Errorf("/?failing=1 does not list the failed recent probes only:\n%s", recent)
	}
	if !strings.Contains(page, `<meta http-equiv="refresh" content="30">`) {
		t.Error("no auto-refresh")
	}
	// A test binary is a plain go build: the version comes from build info.
	if !regexp.MustCompile(`version \S+, revision \S+, (branch \S+, )?(built \S+, )?go1\.`).MatchString(page) {
		t.Errorf("no version line in:\n%.600s", page)
	}
}
