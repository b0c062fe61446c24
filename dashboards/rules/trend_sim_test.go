package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// servedSeries simulates llm_prober_capacity_served_requests_per_second as
// the prober computes it: requests finished per 15 s scrape (Poisson, by
// its normal approximation, times a burst factor), summed over a rate
// window of win scrapes and divided by its length. rate(t) is the mean
// request rate at scrape t; burst > 0 multiplies each scrape's rate by
// 1 ± burst (traffic burstier than Poisson).
func servedSeries(r *rand.Rand, n, win int, burst float64, rate func(t int) float64) string {
	counts := make([]float64, n)
	vals := make([]string, n)
	sum := 0.0
	for t := range n {
		lambda := rate(t) * 15 * (1 + burst*(2*r.Float64()-1))
		counts[t] = math.Max(0, math.Round(lambda+math.Sqrt(lambda)*r.NormFloat64()))
		sum += counts[t]
		k := win
		if t >= win {
			sum -= counts[t-win]
		} else {
			k = t + 1
		}
		vals[t] = fmt.Sprintf("%.4f", sum/float64(k*15))
	}
	return strings.Join(vals, " ")
}

// TestTimeToKneeFlatNoise shows by simulation what the time-to-knee rule
// claims: no value on flat traffic, however noisy its served rate, and
// the right one on a ramp (issue 33: a flat target at 0.3 × the knee got
// 2.9 days to 5.1 years in 37 of 88 evaluations). 90 flat targets at
// 0.3 × the knee (Poisson traffic, 5m and 1m rate windows, and bursty
// traffic), evaluated every 5 minutes from 60m to 120m (1,170
// evaluations), give none; 30 noisy ramps give their time to the knee
// within 40 %, 5 % on average. Needs PROMTOOL (scripts/test.sh sets it).
func TestTimeToKneeFlatNoise(t *testing.T) {
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		t.Skip("set PROMTOOL to a promtool binary (scripts/test.sh does)")
	}
	const n = 2*240 + 1 // 2 hours of 15 s scrapes
	r := rand.New(rand.NewPCG(33, 1))
	var series []map[string]string
	add := func(target string, served string) {
		l := `{job="llm-prober", instance="p:9775", target="` + target + `", model="m"}`
		series = append(series,
			map[string]string{"series": "llm_prober_capacity_knee_requests_per_second" + l, "values": fmt.Sprintf("10x%d", n-1)},
			map[string]string{"series": "llm_prober_capacity_headroom_ratio" + l, "values": fmt.Sprintf("0.5x%d", n-1)},
			map[string]string{"series": "llm_prober_capacity_served_requests_per_second" + l, "values": served})
	}
	flat := func(int) float64 { return 3 }
	for i := range 30 {
		add(fmt.Sprintf("flat-5m-%d", i), servedSeries(r, n, 20, 0, flat))
		add(fmt.Sprintf("flat-1m-%d", i), servedSeries(r, n, 4, 0, flat))
		add(fmt.Sprintf("flat-bursty-%d", i), servedSeries(r, n, 20, 0.3, flat))
	}
	// 2 req/s rising 0.05 req/s a minute: 5 req/s at 60m, the knee (10)
	// 100 minutes later.
	ramp := func(t int) float64 { return 2 + 0.05*float64(t)/4 }
	for i := range 30 {
		add(fmt.Sprintf("ramp-%d", i), servedSeries(r, n, 20, 0.3, ramp))
	}
	type sample struct {
		Labels string  `json:"labels"`
		Value  float64 `json:"value"`
	}
	type exprTest struct {
		Expr       string   `json:"expr"`
		EvalTime   string   `json:"eval_time"`
		ExpSamples []sample `json:"exp_samples"`
	}
	var tests []exprTest
	for m := 60; m <= 120; m += 5 {
		tests = append(tests, exprTest{
			Expr:       `target_model:llm_prober_capacity_time_to_knee:seconds{target=~"flat.*"}`,
			EvalTime:   fmt.Sprintf("%dm", m),
			ExpSamples: []sample{},
		})
	}
	// The rate window lags the ramp by half its length (2.5 minutes of
	// 0.05 req/s), so the truth is 6,000 s plus 150 s.
	// Every ramp has a value within 40 % of it (the rate's noise moves
	// both the gap and the slope), and their mean is within 5 %.
	ramps := `target_model:llm_prober_capacity_time_to_knee:seconds{target=~"ramp.*"}`
	tests = append(tests, exprTest{
		Expr:       `count(abs(` + ramps + ` - 6150) < 0.4 * 6150)`,
		EvalTime:   "60m",
		ExpSamples: []sample{{Labels: "{}", Value: 30}},
	}, exprTest{
		Expr:       `abs(avg(` + ramps + `) - 6150) < bool 0.05 * 6150`,
		EvalTime:   "60m",
		ExpSamples: []sample{{Labels: "{}", Value: 1}},
	})
	dir := t.TempDir()
	if _, err := Write(Default(), dir); err != nil {
		t.Fatal(err)
	}
	file := map[string]any{
		"rule_files": []string{"llm-prober-rules.yml"}, "evaluation_interval": "1m",
		"tests": []any{map[string]any{"interval": "15s", "input_series": series, "promql_expr_test": tests}},
	}
	raw, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "trend_test.yml")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "trend_test.yml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := string(out)
		if len(msg) > 4000 {
			msg = msg[:4000] + "…"
		}
		t.Errorf("promtool test rules: %v\n%s", err, msg)
	}
}
