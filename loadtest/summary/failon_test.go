package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// --fail-on keys are checked before the run against the keys the run
// will have: a typo, a percentile not in --percentiles and a goodput
// condition without SLOs are errors that list the valid keys.
func TestFailOnResolveBeforeTheRun(t *testing.T) {
	ps := []float64{50, 90}
	slo := SLO{TTFT: 500 * time.Millisecond}
	for _, c := range []struct {
		src  string
		slo  SLO
		want string // the resolved key, or "error: <part of the message>"
	}{
		{"p99_ttf>500", slo, "error: valid keys: "},
		{"p99_ttft>500", slo, "error: no result key \"p99_ttft\""},
		{"p90_ttft>500", slo, "p90_ttft_ms"},
		{"p90_ttft_ms>500", slo, "p90_ttft_ms"},
		{"mean_itl>5", slo, "mean_itl_ms"},
		{"failures>0", slo, "failed"},
		{"any-failure", slo, "failed"},
		{"throughput<10", slo, "request_throughput"},
		{"goodput<99", slo, "llm_prober_goodput_percent"},
		{"request_goodput<5", slo, "request_goodput"},
		{"goodput<99", SLO{}, "error: goodput needs SLOs"},
		{"request_goodput<5", SLO{}, "error: without --goodput"},
		{"llm_prober_good_requests<5", SLO{}, "error: goodput needs SLOs"},
	} {
		cond, err := ParseCondition(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		err = cond.Resolve(ps, c.slo)
		if msg, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%s: error %v, want one with %q", c.src, err, msg)
			}
			continue
		}
		if err != nil || cond.Key != c.want {
			t.Errorf("%s: key %q, %v; want %q", c.src, cond.Key, err, c.want)
		}
	}
	cond, _ := ParseCondition("p99_ttf>500")
	err := cond.Resolve(ps, SLO{})
	for _, want := range []string{"failed", "request_throughput", "p90", "_{ttft,tpot,itl,e2el,max_itl}[_ms]", "with --goodput also attainment"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the list of valid keys lacks %q: %v", want, err)
		}
	}
	if keys := FailOnKeys(ps, SLO{}); strings.Contains(strings.Join(keys, " "), "p99_") {
		t.Errorf("keys of a run without p99 name p99: %v", keys)
	}
}

// Issue 34: --fail-on names each request's worst gap and SLO attainment.
func TestFailOnMaxITLAndAttainment(t *testing.T) {
	slo := SLO{MaxITL: 300 * time.Millisecond}
	for src, want := range map[string]string{"p99_max_itl>1000": "llm_prober_p99_max_itl_ms", "mean_max_itl_ms>5": "llm_prober_mean_max_itl_ms",
		"attainment<99": "llm_prober_slo_attainment_percent"} {
		c, err := ParseCondition(src)
		if err == nil {
			err = c.Resolve(nil, slo)
		}
		if err != nil || c.Key != want {
			t.Errorf("%s: key %q, %v; want %q", src, c.Key, err, want)
		}
	}
	c, _ := ParseCondition("attainment<99")
	if err := c.Resolve(nil, SLO{}); err == nil || !strings.Contains(err.Error(), "needs SLOs") {
		t.Errorf("attainment without --goodput: %v", err)
	}
	rep := &Report{SLO: slo, GoodputPercent: 90, MaxITL: stats.ExactStats([]float64{5, 6, 1200}, DefaultPercentiles)}
	for src, want := range map[string]bool{"p99_max_itl>1000": true, "attainment<99": true, "attainment<80": false} {
		c, _ := ParseCondition(src)
		_ = c.Resolve(nil, slo)
		if holds, got, err := c.Check(rep); err != nil || holds != want {
			t.Errorf("%s: holds %v (value %g), %v; want %v", src, holds, got, err, want)
		}
	}
}
