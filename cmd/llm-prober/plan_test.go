package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/capacity/plan"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

func planCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	p := newPlanCmd(app)
	if _, err := app.Parse(append([]string{"plan"}, args...)); err != nil {
		return 2, "", err.Error()
	}
	var out, log bytes.Buffer
	code := p.runTo(t.Context(), &out, &log)
	return code, out.String(), log.String()
}

// kneeSweep writes a bench --sweep --output-json file whose knee point
// served prompts and generations of these mean lengths.
func kneeSweep(t *testing.T, dir string, achieved, offered, prompt, gen float64) string {
	t.Helper()
	path := filepath.Join(dir, "sweep.json")
	b, _ := json.Marshal(map[string]any{
		"knee_goodput_percent": 99, "llm_prober_prompts": "fresh", "knee_request_rate": offered,
		"knee_achieved_request_rate": achieved,
		"points": []map[string]any{
			{"kind": "synchronous", "request_rate": "inf", "completed": 5, "total_input_tokens": 5, "total_output_tokens": 5},
			{"kind": "rate", "request_rate": offered, "completed": 100, "total_input_tokens": 100 * prompt, "total_output_tokens": 100 * gen,
				"llm_prober_workload": "synthetic"},
		},
	})
	testutil.WriteFile(t, path, string(b))
	return path
}

// planResult is what the tests read of --output-json.
type planResult struct {
	Targets  []string `json:"targets"`
	Probers  int      `json:"probers_per_target"`
	Mean     float64  `json:"mean_request_rate"`
	Daily    float64  `json:"daily_requests"`
	Peak     float64  `json:"peak_request_rate"`
	Required float64  `json:"required_request_rate"`
	Busiest  struct {
		Hour     int     `json:"Hour"`
		MeanPeak float64 `json:"MeanPeak"`
		Days     int     `json:"Days"`
	} `json:"busiest_hour"`
	Prompt   *float64 `json:"mean_prompt_tokens"`
	Gen      *float64 `json:"mean_generation_tokens"`
	Replicas int      `json:"replicas"`
	GPUs     int      `json:"gpus"`
	Partial  bool     `json:"partial_window"`
	Warnings []string `json:"warnings"`
}

func readPlan(t *testing.T, path string) planResult {
	t.Helper()
	var r planResult
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	return r
}

// `plan` against two days of known traffic backfilled into the pinned
// Prometheus: the peak, the busiest hour, the replicas and GPUs are those
// computed here from the curve, for each --peak; odd inputs exit with the
// documented codes.
func TestPlanFromServedTraffic(t *testing.T) {
	tr := testutil.DiurnalTraffic(time.Now())
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	end := tr.Start.Add(tr.Duration)
	dir := t.TempDir()
	knee := kneeSweep(t, dir, 3, 3.2, testutil.Mean(tr.Prompt), testutil.Mean(tr.Generation))
	at := []string{"--prometheus.url", prom.URL, "--window.end", end.Format(time.RFC3339)}
	base := append([]string{"--window", "2d", "--knee-file", knee, "--headroom", "2", "--gpus-per-replica", "2"}, at...)

	// Independently: the curve peaks at 10 req/s (day one, 14:00), its
	// busiest hour's daily peaks are 10 and 8, the knee is 3 req/s.
	mean := tr.Served(tr.Start, end) / tr.Duration.Seconds()
	replicas := func(required float64) int { return int(math.Ceil(math.Ceil(required/3-1e-9)*2 - 1e-9)) }
	for _, c := range []struct {
		peak     string
		required float64
	}{{"max", 10}, {"p99", 10}, {"busiest-hour", 9}} {
		out := filepath.Join(dir, c.peak+".json")
		code, stdout, log := planCLI(t, append(base, "--peak", c.peak, "--output-json", out)...)
		if code != 0 {
			t.Fatalf("--peak %s: exit %d\n%s\n%s", c.peak, code, stdout, log)
		}
		r := readPlan(t, out)
		if math.Abs(r.Required-c.required) > 1e-6 || r.Replicas != replicas(c.required) || r.GPUs != 2*replicas(c.required) {
			t.Errorf("--peak %s: required %.4f, %d replicas, %d GPUs; want %g, %d, %d", c.peak, r.Required, r.Replicas, r.GPUs,
				c.required, replicas(c.required), 2*replicas(c.required))
		}
		if math.Abs(r.Mean-mean)/mean > 0.01 || math.Abs(r.Daily-mean*86400)/(mean*86400) > 0.01 {
			t.Errorf("mean %.4f req/s, %.0f a day; want %.4f, %.0f", r.Mean, r.Daily, mean, mean*86400)
		}
		if r.Busiest.Hour != 14 || math.Abs(r.Busiest.MeanPeak-9) > 1e-6 || r.Busiest.Days != 2 || math.Abs(r.Peak-10) > 1e-6 {
			t.Errorf("busiest %+v, peak %g", r.Busiest, r.Peak)
		}
		if strings.Join(r.Targets, ",") != "a,b" || r.Probers != 2 || r.Partial || r.Prompt == nil || math.Abs(*r.Prompt-640) > 0.5 || math.Abs(*r.Gen-200) > 0.5 {
			t.Errorf("targets %v probers %d partial %v prompt %v gen %v", r.Targets, r.Probers, r.Partial, r.Prompt, r.Gen)
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "knee holds") {
				t.Errorf("a warning on the same workload: %s", w)
			}
		}
		for _, want := range []string{"busiest hour of the day: 14:00-15:00 UTC", "replicas = ceil(ceil(required / knee) × headroom)",
			"GPUs = replicas × GPUs per replica", "daily requests = ", "(served: mean "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("--peak %s: output lacks %q:\n%s", c.peak, want, stdout)
			}
		}
		if c.peak == "max" {
			t.Logf("plan output:\n%s", stdout)
		}
	}

	// The knee measured with short prompts: the plan warns.
	short := kneeSweep(t, t.TempDir(), 3, 3.2, 100, 200)
	code, stdout, _ := planCLI(t, append([]string{"--window", "2d", "--knee-file", short}, at...)...)
	if code != 0 || !strings.Contains(stdout, "served prompt lengths average 640 tokens, the knee's workload 100") {
		t.Errorf("workload warning: exit %d\n%s", code, stdout)
	}
	// A knee given as a number: the workload cannot be checked, and says so.
	code, stdout, _ = planCLI(t, append([]string{"--window", "2d", "--knee-rate", "3"}, at...)...)
	if code != 0 || !strings.Contains(stdout, "knee's workload is unknown") || !strings.Contains(stdout, "=> 8 replicas, 8 GPUs") {
		t.Errorf("--knee-rate: exit %d\n%s", code, stdout)
	}
	// A window longer than the history: a plan, saying how much there was.
	out := filepath.Join(dir, "long.json")
	code, stdout, _ = planCLI(t, append([]string{"--window", "7d", "--knee-rate", "3", "--output-json", out}, at...)...)
	if r := readPlan(t, out); code != 0 || !r.Partial || !strings.Contains(stdout, "only 2d of history in the 1w window") || r.Replicas != 8 {
		t.Errorf("7d window over 2d: exit %d, %+v\n%s", code, r, stdout)
	}

	kneeArgs := []string{"--knee-file", knee}
	for _, c := range []struct {
		name, url string
		args      []string
		code      int
		want      string
	}{
		{"no matching series", prom.URL, append([]string{"--selector", `{target="nope"}`}, kneeArgs...), 1, `{target="nope"}`},
		{"no history in the window", prom.URL, append([]string{"--window.end", tr.Start.Add(-24 * time.Hour).Format(time.RFC3339)}, kneeArgs...), 1,
			"no llm_prober_server_requests_finished_total series"},
		{"Prometheus down", "http://" + testutil.FreeAddr(t), kneeArgs, 1, "querying Prometheus"},
		{"bad selector", prom.URL, append([]string{"--selector", `{target=}`}, kneeArgs...), 2, "--selector"},
		{"two knees", prom.URL, append([]string{"--knee-rate", "3"}, kneeArgs...), 2, "not both"},
		{"no knee", prom.URL, nil, 2, "--knee-file"},
		{"garbled knee file", prom.URL, []string{"--knee-file", filepath.Join(dir, "max.json")}, 2, "want a bench --sweep --output-json result"},
		{"missing knee file", prom.URL, []string{"--knee-file", filepath.Join(dir, "nope.json")}, 2, "--knee-file"},
		{"bad timezone", prom.URL, append([]string{"--timezone", "Mars/Olympus"}, kneeArgs...), 2, "--timezone"},
		{"headroom below 1", prom.URL, append([]string{"--headroom", "0.5"}, kneeArgs...), 2, "--headroom"},
		{"a plan beyond range", prom.URL, []string{"--knee-rate", "0.000001"}, 2, "beyond 1000000 replicas"},
	} {
		args := append([]string{"--prometheus.url", c.url, "--window", "2d"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--window.end") {
			args = append(args, "--window.end", end.Format(time.RFC3339))
		}
		code, stdout, log := planCLI(t, args...)
		if code != c.code || !strings.Contains(log, c.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s%s", c.name, code, c.code, c.want, stdout, log)
		}
	}
}

// plan reads the knee and its workload from the file a real sweep wrote;
// from a sweep that never bent (a lower bound) it plans nothing, exit 2.
func TestPlanReadsBenchSweepFile(t *testing.T) {
	dir := t.TempDir()
	lower := filepath.Join(dir, "lower.json")
	code, stdout, log := benchCLI(t, "--url", mocktarget.URL(t), "--rates", "20,40", "--num-prompts", "12", "--min-samples", "0", "--input-tokens", "48",
		"--output-tokens", "6", "--goodput", "ttft:5000", "--progress", "off", "--no-server-metrics", "--output-json", lower)
	if code != 4 {
		t.Fatalf("bench, every rate good: exit %d, want 4\n%s\n%s", code, stdout, log)
	}
	code, stdout, log = planCLI(t, "--prometheus.url", "http://"+testutil.FreeAddr(t), "--knee-file", lower)
	if code != 2 || !strings.Contains(log, "--knee-file: "+lower+": knee above 40 req/s is a lower bound, not a knee") || strings.Contains(stdout, "replicas") {
		t.Errorf("plan from a lower bound: exit %d\n%s%s", code, stdout, log)
	}

	sweep := filepath.Join(dir, "sweep.json")
	code, stdout, log = benchCLI(t, "--url", mocktarget.Saturating(t), "--rates", "10,500", "--num-prompts", "15", "--min-samples", "0", "--input-tokens", "48",
		"--output-tokens", "6", "--goodput", "ttft:600", "--progress", "off", "--no-server-metrics", "--output-json", sweep)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, log)
	}
	var sj struct {
		Achieved float64 `json:"knee_achieved_request_rate"`
		Offered  float64 `json:"knee_request_rate"`
		Points   []struct {
			Rate any     `json:"request_rate"`
			Done float64 `json:"completed"`
			In   float64 `json:"total_input_tokens"`
			Out  float64 `json:"total_output_tokens"`
		} `json:"points"`
	}
	raw, _ := os.ReadFile(sweep)
	if err := json.Unmarshal(raw, &sj); err != nil {
		t.Fatal(err)
	}
	k, err := plan.ReadKnee(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if k.Rate != sj.Achieved || k.Offered != sj.Offered || k.Rate <= 0 {
		t.Errorf("knee %+v; the file says %g achieved at %g offered", k, sj.Achieved, sj.Offered)
	}
	found := false
	for _, p := range sj.Points {
		if r, ok := p.Rate.(float64); ok && r == sj.Offered {
			found = true
			if k.PromptMean != p.In/p.Done || k.OutputMean != p.Out/p.Done || k.OutputMean != 6 {
				t.Errorf("knee workload %g/%g tokens, the knee point's %g/%g (want 6 generated)", k.PromptMean, k.OutputMean, p.In/p.Done, p.Out/p.Done)
			}
		}
	}
	if !found {
		t.Errorf("no point at the knee's rate %g in %s", sj.Offered, raw[:min(len(raw), 400)])
	}
}

// Series that served nothing (a target idle all window) are no data, not
// a plan of zero replicas; lengths of no requests are not NaN in a plan.
func TestPlanIdleTarget(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Hour)
	tr := testutil.Traffic{Start: now.Add(-3 * time.Hour), Duration: 2 * time.Hour, Interval: time.Minute,
		Rate:    func(time.Time) float64 { return 0 },
		Targets: []testutil.TrafficTarget{{Name: "idle", Share: 1, Instances: []string{"p1"}}},
		Prompt:  []testutil.Length{{Tokens: 10, Share: 1}}, Generation: []testutil.Length{{Tokens: 10, Share: 1}}, Buckets: []float64{100}}
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	code, stdout, log := planCLI(t, "--prometheus.url", prom.URL, "--window", "2h", "--window.end", now.Add(-time.Hour).Format(time.RFC3339), "--knee-rate", "3")
	if code != 1 || !strings.Contains(log, "served no requests") || strings.Contains(stdout, "replicas") {
		t.Errorf("idle target: exit %d\n%s%s", code, stdout, log)
	}
}

// --prometheus.http-config-file is checked before any query: an inline
// secret is refused (without printing it), a missing file is named; so is
// a missing --prometheus.url.
func TestPlanHTTPConfigFile(t *testing.T) {
	if code, _, log := planCLI(t, "--knee-rate", "3"); code != 2 || !strings.Contains(log, "--prometheus.url is required") {
		t.Errorf("no --prometheus.url: exit %d, %s", code, log)
	}
	dir := t.TempDir()
	hc := filepath.Join(dir, "http.yml")
	testutil.WriteFile(t, hc, "basic_auth:\n  username: planner\n  password: hunter2-secret\n")
	code, stdout, log := planCLI(t, "--prometheus.url", "http://127.0.0.1:1", "--knee-rate", "3", "--prometheus.http-config-file", hc)
	if code != 2 || !strings.Contains(log, "password_file") || !strings.Contains(log, hc) || strings.Contains(log+stdout, "hunter2") {
		t.Errorf("inline password: exit %d\n%s%s", code, stdout, log)
	}
	code, _, log = planCLI(t, "--prometheus.url", "http://127.0.0.1:1", "--knee-rate", "3", "--prometheus.http-config-file", filepath.Join(dir, "nope.yml"))
	if code != 2 || !strings.Contains(log, "nope.yml") {
		t.Errorf("missing file: exit %d, %s", code, log)
	}
	testutil.WriteFile(t, hc, "basic_auth: [\n")
	if code, _, log = planCLI(t, "--prometheus.url", "http://127.0.0.1:1", "--knee-rate", "3", "--prometheus.http-config-file", hc); code != 2 || !strings.Contains(log, "http-config-file") {
		t.Errorf("garbled file: exit %d, %s", code, log)
	}
}

// Non-finite and absurd flags exit 2 with one line before Prometheus is
// asked (here it is down: a query would be exit 1); they printed
// "-9223372036854775808 replicas" or truncated 2.5 GPUs (issue 31 item 7).
func TestPlanRefusesAbsurdFlags(t *testing.T) {
	down := []string{"--prometheus.url", "http://" + testutil.FreeAddr(t)}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--knee-rate", "NaN"}, "--knee-rate"},
		{[]string{"--knee-rate", "Inf"}, "--knee-rate"},
		{[]string{"--knee-rate", "-Inf"}, "--knee-rate"},
		{[]string{"--knee-rate", "1e-300"}, "--knee-rate"},
		{[]string{"--knee-rate", "1e308"}, "--knee-rate"},
		{[]string{"--knee-rate", "35", "--headroom", "NaN"}, "--headroom NaN"},
		{[]string{"--knee-rate", "35", "--headroom", "Inf"}, "--headroom +Inf"},
		{[]string{"--knee-rate", "35", "--gpus-per-replica", "0"}, "--gpus-per-replica 0"},
		{[]string{"--knee-rate", "35", "--gpus-per-replica", "2.5"}, `--gpus-per-replica: "2.5" is not a whole number`},
	} {
		code, stdout, log := planCLI(t, append(append([]string(nil), down...), c.args...)...)
		if code != 2 || !strings.Contains(log, c.want) || stdout != "" || strings.Count(strings.TrimSpace(log), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line with %q:\n%s%s", c.args, code, c.want, stdout, log)
		}
	}
	// A knee file whose rate is absurd is refused as --knee-rate is.
	path := kneeSweep(t, t.TempDir(), 1e-300, 1e-300, 100, 100)
	if code, _, log := planCLI(t, append(down, "--knee-file", path)...); code != 2 || !strings.Contains(log, "1e-300") {
		t.Errorf("knee file at 1e-300 req/s: exit %d, %s", code, log)
	}
}

// A Prometheus whose error carries terminal escapes, and a knee file
// whose name does: plan prints neither raw (issue 32, text).
func TestPlanEscapesServerAndFileText(t *testing.T) {
	const hostile = "\x1b[2J\x1b]0;pwned\x07"
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"status":"error","errorType":"bad_data","error":"parse error%s"}`, strings.ReplaceAll(strings.ReplaceAll(hostile, "\x1b", `\u001b`), "\x07", `\u0007`))
	}))
	t.Cleanup(prom.Close)
	dir := filepath.Join(t.TempDir(), "sweeps"+hostile)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	knee := kneeSweep(t, dir, 3, 3.2, 100, 100)
	code, stdout, log := planCLI(t, "--prometheus.url", prom.URL, "--knee-file", knee)
	if code != 1 || strings.ContainsAny(stdout+log, "\x1b\x07") || !strings.Contains(log, `parse error\x1b[2J`) {
		t.Errorf("exit %d, want 1 and the error escaped:\n%q", code, stdout+log)
	}
	code, stdout, log = planCLI(t, "--prometheus.url", prom.URL, "--knee-file", filepath.Join(dir, "missing.json"))
	if code != 2 || strings.ContainsAny(stdout+log, "\x1b\x07") || !strings.Contains(log, `sweeps\x1b[2J`) {
		t.Errorf("exit %d, want 2 and the file name escaped:\n%q", code, stdout+log)
	}
}
