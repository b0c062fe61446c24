package summary

import (
	"strings"
	"testing"
	"time"
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
