package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

// planRefusals are plan inputs that printed "-9223372036854775808
// replicas", 0 GPUs or a silently changed number with exit 0 (issue 31
// item 7): each is refused with exit 2 and one line naming the flag.
var planRefusals = []struct {
	args []string
	want string
}{
	{[]string{"--knee-rate", "35", "--daily-requests", "1e30"}, "--daily-requests 1e+30 is beyond"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e13"}, "beyond 1000000 replicas"},
	{[]string{"--knee-rate", "NaN", "--daily-requests", "1e6"}, "--knee-rate"},
	{[]string{"--knee-rate", "Inf", "--daily-requests", "1e6"}, "--knee-rate"},
	{[]string{"--knee-rate", "35", "--daily-requests", "NaN"}, "--daily-requests"},
	{[]string{"--knee-rate", "35", "--daily-requests", "Inf"}, "--daily-requests"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--headroom", "NaN"}, "--headroom NaN"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--headroom", "Inf"}, "--headroom"},
	{[]string{"--knee-rate", "35", "--peak-rps", "1e308"}, "--peak-rps 1e+308 is beyond"},
	{[]string{"--knee-rate", "1e-300", "--peak-rps", "10"}, "--knee-rate"},
	{[]string{"--knee-rate", "0.001", "--peak-rps", "1e6"}, "beyond 1000000 replicas"},
	{[]string{"--knee-rate", "35", "--peak-rps", "100", "--gpus-per-replica", "1000000"}, "GPUs"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--peak-to-average", "0"}, "--peak-to-average 0"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--peak-to-average", "0.5"}, "--peak-to-average 0.5"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--peak-to-average", "NaN"}, "--peak-to-average NaN"},
	{[]string{"--knee-rate", "35", "--daily-requests", "1e6", "--gpus-per-replica", "0"}, "--gpus-per-replica 0"},
}

// bench --knee-rate refuses every one of them before anything runs, and a
// sweep's plan flags (no --knee-rate) refuse the demand ones before the
// first request.
func TestBenchCLIPlanRefusesAbsurdInputs(t *testing.T) {
	for _, c := range planRefusals {
		code, stdout, log := benchCLI(t, c.args...)
		if code != 2 || !strings.Contains(log, c.want) || stdout != "" || strings.Count(strings.TrimSpace(log), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line with %q:\n%s%s", c.args, code, c.want, stdout, log)
		}
	}
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(ts.Close)
	for _, args := range [][]string{
		{"--daily-requests", "NaN"}, {"--peak-rps", "Inf"}, {"--peak-rps", "1e308"},
		{"--daily-requests", "1e6", "--headroom", "NaN"}, {"--daily-requests", "1e6", "--peak-to-average", "0"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", ts.URL, "--model", "m", "--progress", "off", "--sweep", "--goodput", "ttft:500"}, args...)...)
		if code != 2 || !strings.Contains(log, "capacity plan") {
			t.Errorf("sweep %v: exit %d, %q; want 2", args, code, log)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent before the plan flags were checked", n)
	}
	// A sane plan still prints.
	code, stdout, log := benchCLI(t, "--knee-rate", "35", "--daily-requests", "5e6", "--peak-to-average", "1")
	if code != 0 || !strings.Contains(stdout, "=> 4 replicas, 4 GPUs") {
		t.Errorf("seed example: exit %d\n%s%s", code, stdout, log)
	}
}

// --gpus-per-replica is a whole number: 2.5 was truncated to 2.
func TestBenchGPUsPerReplicaIsAnInteger(t *testing.T) {
	app := kingpin.New("llm-prober", "")
	NewCommand(app)
	_, err := app.Parse([]string{"bench", "--knee-rate", "35", "--peak-rps", "10", "--gpus-per-replica", "2.5"})
	if err == nil || !strings.Contains(err.Error(), `--gpus-per-replica: "2.5" is not a whole number`) {
		t.Errorf("--gpus-per-replica 2.5: %v", err)
	}
}
