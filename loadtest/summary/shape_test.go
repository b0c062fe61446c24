package summary

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// vllm bench serve's per-request rate: linear from start to end over the
// requests, exponential by a constant ratio.
// The ramp's schedule is exact: each gap drawn at the next request's
// rate from the run's seeded stream; and per tenth, the planned rate
// follows the nominal one.
func TestRampSchedule(t *testing.T) {
	const n, warm = 4000, 5
	for _, strategy := range []string{loadtest.RampLinear, loadtest.RampExponential} {
		o := loadtest.Options{Rate: math.Inf(1), Burstiness: 1, Seed: 7, NumPrompts: n, WarmupRequests: warm,
			Ramp: &loadtest.Ramp{Strategy: strategy, Start: 10, End: 200}}
		p := o.Plan()
		rng := rand.New(rand.NewPCG(7, 0x617272697661))
		var want time.Duration
		at := make([]time.Duration, n+warm)
		for i := range at {
			at[i] = p.Next()
			if at[i] != want {
				t.Fatalf("%s: request %d planned at %v, want %v", strategy, i, at[i], want)
			}
			r := o.Ramp.RateAt(i+1-warm, n)
			if i+1 < warm {
				r = o.Ramp.Start
			}
			if r > 0 {
				want += time.Duration(stats.Gamma(rng, 1) / r * float64(time.Second))
			}
		}
		for k := range 10 {
			lo, hi := warm+k*n/10, warm+(k+1)*n/10-1
			planned := float64(hi-lo) / (at[hi] - at[lo]).Seconds()
			nominal := (o.Ramp.RateAt(lo-warm, n) + o.Ramp.RateAt(hi-warm, n)) / 2
			if math.Abs(planned-nominal)/nominal > 0.15 {
				t.Errorf("%s tenth %d: planned %.1f req/s, nominal %.1f", strategy, k+1, planned, nominal)
			}
		}
	}
}

// A linear ramp from 0 sends its warm-up at its second request's rate,
// not all at once (rate 0 would mean no gap).
func TestRampFromZeroWarmup(t *testing.T) {
	o := loadtest.Options{Rate: math.Inf(1), Burstiness: 1, Seed: 1, NumPrompts: 101, WarmupRequests: 20,
		Ramp: &loadtest.Ramp{Strategy: loadtest.RampLinear, Start: 0, End: 100}}
	p := o.Plan()
	var at []time.Duration
	for range 22 {
		at = append(at, p.Next())
	}
	if span := at[19] - at[0]; span < 5*time.Second {
		t.Errorf("20 warm-up requests at 1 req/s planned over %v", span)
	}
	if at[20] != at[19] {
		t.Errorf("the first measured request (rate 0) planned %v after the warm-up, want at once", at[20]-at[19])
	}
}

// A ramp or trace sets the rate itself, counts by request and is open
// loop: anything else is refused before the run.
func TestShapeOptionsRefused(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	base := runkit.BaseOptions(tg, client, 8, 4)
	base.Rate, base.NumPrompts = math.Inf(1), 10
	ramp := &loadtest.Ramp{Strategy: loadtest.RampLinear, Start: 1, End: 10}
	for _, c := range []struct {
		edit func(o *loadtest.Options)
		want string
	}{
		{func(o *loadtest.Options) { o.Rate = 5 }, "leave --request-rate unset"},
		{func(o *loadtest.Options) { o.Duration, o.NumPrompts = time.Second, 0 }, "counts by request"},
		{func(o *loadtest.Options) { o.WarmupDuration = time.Second }, "counts by request"},
		{func(o *loadtest.Options) { o.Concurrency = 2 }, "open-loop"},
		{func(o *loadtest.Options) { o.Ramp.End = 0 }, "> 0"},
	} {
		o := base
		o.Ramp = &loadtest.Ramp{}
		*o.Ramp = *ramp
		c.edit(&o)
		if _, err := loadtest.Execute(t.Context(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// A stage whose goodput falls is named: where the ramp crossed the SLO.
func TestRampFirstStageBelow(t *testing.T) {
	rep := &Report{SLO: SLO{TTFT: time.Second}, Stages: []Stage{{Completed: 10, GoodputPercent: 100}, {Completed: 10, GoodputPercent: 100}, {Completed: 10, GoodputPercent: 80}}}
	if got := rep.FirstStageBelow(99); got != 2 {
		t.Errorf("FirstStageBelow = %d, want 2", got)
	}
	rep.Shape, rep.Stages[2].PlannedRate, rep.Completed = "linear ramp-up 1 → 10 req/s", 9.5, 30
	if v := Judge(rep, nil); len(v.Evidence) < 2 || !strings.Contains(v.Evidence[0], "the load changed over the run") ||
		v.Evidence[1] != "SLO attainment first fell below 99% in stage 3 of 3 (planned 9.5 req/s)" {
		t.Errorf("verdict evidence %q", v.Evidence)
	}
	rep.SLO = SLO{}
	if got := rep.FirstStageBelow(99); got != -1 {
		t.Errorf("without SLOs FirstStageBelow = %d", got)
	}
}

// A stage whose requests were all planned at one instant (a trace's
// burst) is a burst, not "planned 0.0 req/s" (issue 31).
func TestBurstStageRate(t *testing.T) {
	ms := int64(time.Millisecond)
	run := &loadtest.Run{Opts: loadtest.Options{Rate: math.Inf(1), NumPrompts: 20,
		Ramp: &loadtest.Ramp{Strategy: loadtest.RampLinear, Start: 1, End: 10}}}
	for i := range 20 {
		planned := int64(0) // the first ten at once
		if i >= 10 {
			planned = int64(i-9) * 100 * ms
		}
		run.Records = append(run.Records, loadtest.Record{Index: int64(i), Planned: planned, Start: planned + int64(i)*ms,
			End: planned + 50*ms, TTFT: 10 * ms, E2EL: 40 * ms, OutputTokens: 2})
	}
	rep := Summarize(run, SLO{TTFT: time.Millisecond}, nil)
	if len(rep.Stages) != 2 || !math.IsInf(rep.Stages[0].PlannedRate, 1) || math.Abs(rep.Stages[1].PlannedRate-10) > 1e-9 {
		t.Fatalf("stages %+v", rep.Stages)
	}
	if v := Judge(rep, nil); !strings.Contains(strings.Join(v.Evidence, "\n"), "stage 1 of 2 (planned burst (all at once))") {
		t.Errorf("verdict evidence %q", v.Evidence)
	}
	for _, kv := range rep.VLLMKeys() {
		if kv.Key == "llm_prober_stages" && kv.Value.([]map[string]any)[0]["planned_rate"] != "inf" {
			t.Errorf("JSON planned_rate %v, want \"inf\"", kv.Value.([]map[string]any)[0]["planned_rate"])
		}
	}
}
