package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// /metrics counts its own scrapes as promhttp's handler does, says what
// its answer varies by, and serves only the families name[] asks for.
func TestMetricsHandlerAsPromhttp(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "llm-prober.yml")
	testutil.WriteFile(t, cfg, fmt.Sprintf(configTemplate, targetYAML("one", mockServer(t))))
	p := startProber(t, "--config.file="+cfg)
	for range 3 {
		p.get("/metrics")
	}
	if got := p.metric(`promhttp_metric_handler_requests_total{code="200"}`); got < 3 {
		t.Errorf("promhttp_metric_handler_requests_total{code=\"200\"} = %v after 3 scrapes", got)
	}
	if got := p.metric("promhttp_metric_handler_requests_in_flight"); got != 1 {
		t.Errorf("promhttp_metric_handler_requests_in_flight = %v, want 1 (this scrape)", got)
	}
	resp, err := http.Get("http://" + p.addr + "/metrics?name[]=llm_prober_probe_interval_seconds&name[]=llm_prober_build_info")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if vary := resp.Header.Values("Vary"); !slices.Equal(vary, []string{"Accept", "Accept-Encoding"}) {
		t.Errorf("Vary %q", vary)
	}
	_, body := p.get("/metrics?name[]=llm_prober_probe_interval_seconds&name[]=llm_prober_build_info")
	var families []string
	for _, line := range strings.Split(body, "\n") {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			families = append(families, strings.Fields(name)[0])
		}
	}
	if !slices.Equal(families, []string{"llm_prober_build_info", "llm_prober_probe_interval_seconds"}) {
		t.Errorf("name[] filter gave families %v:\n%s", families, body)
	}
}
