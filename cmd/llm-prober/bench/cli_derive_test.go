package bench

import (
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/llm-prober/llm-prober/loadtest/workload"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// Contradictory flags are refused before any network (exit 2), and an
// unreachable Prometheus is a run error naming it (exit 1); a missing
// workload file is bad input (exit 2).
func TestBenchDeriveFlags(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.json")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--save-workload", wf}, 2, "--save-workload needs --workload-from-prometheus"},
		{[]string{"--prometheus.url", "http://127.0.0.1:1"}, 2, "only with --workload-from-prometheus"},
		{[]string{"--workload-from-prometheus", "--workload-file", wf}, 2, "choose one"},
		{[]string{"--workload-file", wf, "--input-tokens", "10"}, 2, "--input-tokens, --output-tokens and --range-ratio conflict"},
		{[]string{"--workload-file", wf, "--output-tokens", "10"}, 2, "conflict with a derived workload"},
		{[]string{"--workload-file", wf, "--dataset-name", "sharegpt", "--dataset-path", wf}, 2, "--dataset-name sharegpt conflicts"},
		{[]string{"--workload-from-prometheus"}, 2, "--prometheus.url"},
		{[]string{"--workload-from-prometheus", "--prometheus.url", "http://127.0.0.1:1", "--selector", "target=a"}, 2, "--selector"},
		{[]string{"--workload-from-prometheus", "--prometheus.url", "http://127.0.0.1:1"}, 1, "127.0.0.1:1"},
		{[]string{"--workload-file", filepath.Join(dir, "missing.json")}, 2, "--workload-file: cannot read " + filepath.Join(dir, "missing.json")},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != c.code || !strings.Contains(log, c.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, log)
		}
	}
}

// A saved workload sent to the mock: the rate and burstiness come from
// the file, the sent prompt and output lengths follow its buckets, and
// the JSON records where the workload came from.
func TestBenchWorkloadFileMock(t *testing.T) {
	dir := t.TempDir()
	w := &workload.DerivedWorkload{Version: 1, RequestRate: 400,
		Origin:     workload.WorkloadOrigin{Source: "prometheus", URL: "http://prom:9090", Selector: `{target="a"}`, Window: "1d", Requests: 5000, Targets: []string{"a"}},
		Burstiness: workload.BurstFit{Shape: 0.5, Intervals: 1439, IntervalSeconds: 60, MeanPerInterval: 200, Dispersion: 2},
		Input:      workload.LengthDist{Buckets: []workload.LengthBucket{{Lo: 0, Hi: 64, Requests: 2000}, {Lo: 128, Hi: 256, Requests: 3000}}},
		Output:     workload.LengthDist{Buckets: []workload.LengthBucket{{Lo: 0, Hi: 8, Requests: 2500}, {Lo: 16, Hi: 32, Requests: 2500}}},
	}
	wf, out := filepath.Join(dir, "w.json"), filepath.Join(dir, "r.json")
	if err := w.Save(wf); err != nil {
		t.Fatal(err)
	}
	code, stdout, log := benchCLI(t, "--url", mocktarget.URL(t), "--workload-file", wf, "--num-prompts", "400", "--output-json", out,
		"--progress", "off", "--no-server-metrics")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"Workload derived from the served traffic", "file " + wf, "gamma shape 0.50",
		"bench sends:  --request-rate 400 --burstiness 0.5 --prefix-tokens 0", "served workload: input tokens mean"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	var res struct {
		In       []float64 `json:"input_lens"`
		Out      []float64 `json:"output_lens"`
		Workload struct {
			Origin workload.WorkloadOrigin `json:"origin"`
		} `json:"llm_prober_derived_workload"`
	}
	readJSON(t, out, &res)
	if res.Workload.Origin.File != wf || res.Workload.Origin.Source != "prometheus" || res.Workload.Origin.Selector != `{target="a"}` {
		t.Errorf("JSON origin %+v", res.Workload.Origin)
	}
	if len(res.In) != 400 || len(res.Out) != 400 {
		t.Fatalf("%d input, %d output lengths; want 400", len(res.In), len(res.Out))
	}
	// Binomial: 400 draws of a 0.4 (0.5) share have a standard deviation
	// of 0.024 (0.025); 0.09 is over 3.5 of them.
	var shortIn, shortOut float64
	for i := range res.In {
		switch in := res.In[i]; {
		case in >= 1 && in <= 64:
			shortIn++
		case in < 129 || in > 256:
			t.Errorf("request %d: %g prompt tokens outside the buckets", i, in)
		}
		switch o := res.Out[i]; {
		case o >= 1 && o <= 8:
			shortOut++
		case o < 17 || o > 32:
			t.Errorf("request %d: %g output tokens outside the buckets", i, o)
		}
	}
	if math.Abs(shortIn/400-0.4) > 0.09 || math.Abs(shortOut/400-0.5) > 0.09 {
		t.Errorf("short prompts %.3f (want 0.4), short outputs %.3f (want 0.5)", shortIn/400, shortOut/400)
	}
}

// The capacity loop's third step against a real Prometheus: two days of
// known traffic backfilled, `bench --workload-from-prometheus
// --save-workload` runs on the mock, and the file holds the traffic's
// lengths, targets and mean rate.
func TestBenchWorkloadFromPrometheus(t *testing.T) {
	tr := testutil.DiurnalTraffic(time.Now())
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	end := tr.Start.Add(tr.Duration)
	dir := t.TempDir()
	wf, out := filepath.Join(dir, "w.json"), filepath.Join(dir, "r.json")
	code, stdout, log := benchCLI(t, "--url", mocktarget.URL(t), "--workload-from-prometheus", "--prometheus.url", prom.URL,
		"--window", "2d", "--window.end", end.Format(time.RFC3339), "--save-workload", wf, "--request-rate", "200",
		"--num-prompts", "40", "--output-json", out, "--progress", "off", "--no-server-metrics")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	w, err := workload.LoadDerivedWorkload(wf)
	if err != nil {
		t.Fatal(err)
	}
	served := tr.Served(tr.Start, end)
	if strings.Join(w.Origin.Targets, ",") != "a,b" || math.Abs(w.Origin.Requests-served) > 0.01*served {
		t.Errorf("targets %v, %g requests; want a,b and %g", w.Origin.Targets, w.Origin.Requests, served)
	}
	if want := served / (48 * 3600); math.Abs(w.RequestRate-want) > 0.01*want {
		t.Errorf("mean rate %g, want %g", w.RequestRate, want)
	}
	if math.Abs(w.Input.Mean-640) > 1 || math.Abs(w.Output.Mean-200) > 1 || len(w.Input.Buckets) != 2 ||
		math.Abs(w.Input.Buckets[0].Requests/w.Input.Requests-0.4) > 0.001 || w.Input.Buckets[1].Lo != 512 {
		t.Errorf("input %+v, output mean %g; want 40 %% ≤ 128 and 60 %% in (512, 2048], means 640 and 200", w.Input, w.Output.Mean)
	}
	if w.PrefixCacheHitRate != nil || w.PrefixTokens != 0 {
		t.Errorf("no prefix-cache counters, yet hit rate %v prefix %d", w.PrefixCacheHitRate, w.PrefixTokens)
	}
	for _, want := range []string{"wrote " + wf, "selector {}, window 2d", "targets:      a, b", "bench sends:  --request-rate 200"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	raw, _ := os.ReadFile(out)
	if !strings.Contains(string(raw), `"llm_prober_derived_workload"`) || !strings.Contains(string(raw), prom.URL) {
		t.Errorf("the run's JSON does not record the workload's origin")
	}
	t.Logf("%s", log)
}

// The prefix closes the loop: a workload whose served prefix-cache hit
// rate was 30 % (prompts of 900–1,100 tokens) gets a 300-token shared
// Prefix, and the mock's simulated prefix cache (vLLM's: 16-token
// blocks, the last prompt token recomputed) then reports about that
// rate: 288 of 1,000 tokens, less the first request's miss.
func TestBenchWorkloadPrefixHitRate(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 16
	s := mockvllm.New(o)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	h := 0.3
	w := &workload.DerivedWorkload{Version: 1, RequestRate: 200, PrefixCacheHitRate: &h,
		Origin: workload.WorkloadOrigin{Source: "prometheus", Selector: "{}", Window: "1d", Requests: 1000},
		Input:  workload.LengthDist{Buckets: []workload.LengthBucket{{Lo: 900, Hi: 1100, Requests: 1000}}, Requests: 1000, Mean: 1000},
		Output: workload.LengthDist{Buckets: []workload.LengthBucket{{Lo: 0, Hi: 4, Requests: 1000}}, Requests: 1000, Mean: 2},
	}
	w.PrefixTokens, _ = workload.PrefixForHitRate(h, &w.Input)
	wf := filepath.Join(t.TempDir(), "w.json")
	if err := w.Save(wf); err != nil {
		t.Fatal(err)
	}
	code, stdout, log := benchCLI(t, "--url", ts.URL, "--api", "completions", "--workload-file", wf, "--num-prompts", "200",
		"--progress", "off", "--no-server-metrics")
	if code != 0 || !strings.Contains(log, "--prefix-tokens 300") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	sum := func(name string) float64 {
		var v float64
		for _, line := range strings.Split(string(body), "\n") {
			if f := strings.Fields(line); strings.HasPrefix(line, name) && len(f) == 2 {
				x, _ := strconv.ParseFloat(f[1], 64)
				v += x
			}
		}
		return v
	}
	hits, queries := sum("vllm:prefix_cache_hits_total"), sum("vllm:prefix_cache_queries_total")
	if got := hits / queries; queries == 0 || got < 0.27 || got > 0.31 {
		t.Errorf("the mock served %.3f of prompt tokens from its cache (%g of %g), want about 0.287", got, hits, queries)
	}
	t.Logf("served hit rate %.4f", hits/queries)
}
