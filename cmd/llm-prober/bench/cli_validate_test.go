package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Bad flags exit 2 with a clear message before anything is sent: not
// after prompt sizing, let alone after the run.
func TestBenchCLIFlagsCheckedUpFront(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(ts.Close)
	base := []string{"--url", ts.URL, "--model", "m", "--progress", "off", "--num-prompts", "5"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fail-on", "p99_ttf>500"}, `no result key "p99_ttf"; valid keys: `},
		{[]string{"--percentiles", "50,90", "--fail-on", "p99_ttft>500"}, "{mean,median,std,p50,p90}_{ttft,tpot,itl,e2el,max_itl}"},
		{[]string{"--fail-on", "goodput<99"}, "goodput needs SLOs"},
		{[]string{"--fail-on", "request_goodput<1", "--fail-on", "failed>0"}, "goodput needs SLOs"},
		{[]string{"--burstiness=-1"}, "--burstiness -1"},
		{[]string{"--burstiness", "0"}, "must be positive"},
		{[]string{"--temperature", "warm"}, `--temperature "warm"`},
		{[]string{"--temperature=-1"}, `--temperature "-1"`},
		{[]string{"--request-rate", "fast"}, "--request-rate: rate \"fast\""},
		{[]string{"--request-rate", "0"}, "--request-rate"},
		{[]string{"--request-rate", "inf", "--duration", "5s"}, "needs --max-concurrency"},
		{[]string{"--concurrency=-2"}, "cannot be negative"},
		{[]string{"--input-tokens", "0"}, "--input-tokens"},
		{[]string{"--dataset-name", "jsonl"}, "needs --dataset-path"},
		{[]string{"--daily-requests", "1e6", "--peak-rps", "20", "--sweep", "--goodput", "ttft:500"}, "not both"},
		{[]string{"--headroom", "0.5", "--peak-rps", "20", "--sweep", "--goodput", "ttft:500"}, "--headroom"},
		{[]string{"--sweep"}, "give --goodput"},
		{[]string{"--rates", "1,x", "--goodput", "ttft:500"}, `--rates: "x"`},
		{[]string{"--sweep", "--goodput", "ttft:500", "--knee-goodput", "150"}, "--knee-goodput"},
	} {
		code, _, log := benchCLI(t, append(append([]string(nil), base...), c.args...)...)
		if code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, log, c.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server before the flags were checked", n)
	}
	// Both plan inputs without running: an error, not --peak-rps winning.
	code, stdout, log := benchCLI(t, "--knee-rate", "4", "--daily-requests", "1e6", "--peak-rps", "20")
	if code != 2 || !strings.Contains(log, "not both") || stdout != "" {
		t.Errorf("plan with both inputs: exit %d\n%s%s", code, stdout, log)
	}
}
