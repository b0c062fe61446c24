package collector

import (
	"net/http"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

// A server whose label values carry terminal escapes: the re-exported
// series show them as visible "\x1b", never raw, on our /metrics; the
// metric names are unchanged (issue 32, text).
func TestLabelValuesEscaped(t *testing.T) {
	const body = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\x1b[2J\x1b]0;pwned\x07\",engine=\"0\"} 3\n"
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("esc", srv.URL)})
	waitScrapes(t, m, "esc", 1)
	if text := string(gatherText(t, reg)); strings.ContainsAny(text, "\x1b\x07") {
		t.Errorf("raw control characters on /metrics:\n%q", text)
	}
	s := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": "esc"})
	found := false
	for _, ms := range s {
		for _, l := range ms.GetLabel() {
			found = found || l.GetValue() == `m\x1b[2J\x1b]0;pwned\x07`
		}
	}
	if !found {
		t.Errorf("no series with the model escaped: %v", s)
	}
}
