package bench

import (
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// bench --web.listen-address judges an output the server cut short under
// --ignore-eos as the run's report does (issue 34): not good, though it
// met every --goodput objective (the listener counted it good).
func TestBenchLiveCountsCutShort(t *testing.T) {
	url := contextMock(t, false, true) // hides its context and truncates: every output cut short
	out := filepath.Join(t.TempDir(), "r.json")
	var final map[string]*dto.MetricFamily
	hook := func(addr string, closing bool) {
		if !closing {
			return
		}
		var err error
		if final, err = scrapeLive(addr); err != nil {
			t.Error(err)
		}
	}
	code, stdout, log := benchLiveCLI(t, hook, "--url", url, "--model", "mock-model", "--request-rate", "100", "--num-prompts", "6",
		"--input-tokens", "478", "--output-tokens", "32", "--goodput", "e2el:60000", "--output-json", out, "--progress", "off",
		"--no-server-metrics", "--web.listen-address", "127.0.0.1:0")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	var res struct {
		CutShort  float64 `json:"llm_prober_cut_short_requests"`
		Completed int
	}
	readJSON(t, out, &res)
	if res.CutShort != 6 || res.Completed != 6 {
		t.Fatalf("%g cut short of %d completed, want 6 of 6", res.CutShort, res.Completed)
	}
	sel := map[string]string{"module": "bench"}
	if got := liveValue(final, "llm_prober_probes_good_total", sel); got != 0 {
		t.Errorf("probes_good_total = %g, want 0: the report counts 6 cut short, none good", got)
	}
	if got := liveValue(final, "llm_prober_probes_total", sel); got != 6 {
		t.Errorf("probes_total = %g, want 6", got)
	}
}
