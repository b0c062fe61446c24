package loadtest

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// vllm bench serve's per-request rate: linear from start to end over the
// requests, exponential by a constant ratio.
func TestRampRateAt(t *testing.T) {
	lin := Ramp{Strategy: RampLinear, Start: 1, End: 10}
	for i, want := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		if got := lin.RateAt(i, 10); math.Abs(got-want) > 1e-9 {
			t.Errorf("linear RateAt(%d, 10) = %g, want %g", i, got, want)
		}
	}
	exp := Ramp{Strategy: RampExponential, Start: 1, End: 16}
	for i, want := range []float64{1, 2, 4, 8, 16} {
		if got := exp.RateAt(i, 5); math.Abs(got-want) > 1e-9 {
			t.Errorf("exponential RateAt(%d, 5) = %g, want %g", i, got, want)
		}
	}
	if got := lin.RateAt(0, 1); got != 1 {
		t.Errorf("one request: RateAt = %g, want the start rate", got)
	}
}

func TestRampCheck(t *testing.T) {
	for _, c := range []struct {
		r    Ramp
		want string
	}{
		{Ramp{"linear", 10, 5}, "above --ramp-up-end-rps"},
		{Ramp{"exponential", 0, 5}, "cannot start at 0"},
		{Ramp{"step", 1, 5}, "linear or exponential"},
		{Ramp{"linear", 0, 0}, "> 0"},
		{Ramp{"linear", -1, 5}, "≥ 0"},
		{Ramp{"linear", math.NaN(), 5}, "≥ 0"},
		{Ramp{"linear", 1, math.Inf(1)}, "finite"},
	} {
		if err := c.r.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
	if err := (&Ramp{"linear", 0, 5}).Check(); err != nil {
		t.Errorf("a linear ramp from 0 is vllm bench's: %v", err)
	}
}

// The ramp's schedule is exact: each gap drawn at the next request's
// rate from the run's seeded stream; and per tenth, the planned rate
// follows the nominal one.
func TestRampSchedule(t *testing.T) {
	const n, warm = 4000, 5
	for _, strategy := range []string{RampLinear, RampExponential} {
		o := Options{Rate: math.Inf(1), Burstiness: 1, Seed: 7, NumPrompts: n, WarmupRequests: warm,
			Ramp: &Ramp{Strategy: strategy, Start: 10, End: 200}}
		p := o.plan()
		rng := rand.New(rand.NewPCG(7, 0x617272697661))
		var want time.Duration
		at := make([]time.Duration, n+warm)
		for i := range at {
			at[i] = p.next()
			if at[i] != want {
				t.Fatalf("%s: request %d planned at %v, want %v", strategy, i, at[i], want)
			}
			r := o.Ramp.RateAt(i+1-warm, n)
			if i+1 < warm {
				r = o.Ramp.Start
			}
			if r > 0 {
				want += time.Duration(gamma(rng, 1) / r * float64(time.Second))
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
	o := Options{Rate: math.Inf(1), Burstiness: 1, Seed: 1, NumPrompts: 101, WarmupRequests: 20,
		Ramp: &Ramp{Strategy: RampLinear, Start: 0, End: 100}}
	p := o.plan()
	var at []time.Duration
	for range 22 {
		at = append(at, p.next())
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
	_, tg, client := startMock(t, fixedMock())
	base := baseOptions(tg, client, 8, 4)
	base.Rate, base.NumPrompts = math.Inf(1), 10
	ramp := &Ramp{Strategy: RampLinear, Start: 1, End: 10}
	for _, c := range []struct {
		edit func(o *Options)
		want string
	}{
		{func(o *Options) { o.Rate = 5 }, "leave --request-rate unset"},
		{func(o *Options) { o.Duration, o.NumPrompts = time.Second, 0 }, "counts by request"},
		{func(o *Options) { o.WarmupDuration = time.Second }, "counts by request"},
		{func(o *Options) { o.Concurrency = 2 }, "open-loop"},
		{func(o *Options) { o.Ramp.End = 0 }, "> 0"},
	} {
		o := base
		o.Ramp = &Ramp{}
		*o.Ramp = *ramp
		c.edit(&o)
		if _, err := Execute(t.Context(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// A ramp against the mock: the report splits it in tenths whose planned
// rate follows the ramp, the sent rate loosely, and the verdict's rate is
// the mean planned one, not "all at once".
func TestRampRunStages(t *testing.T) {
	_, tg, client := startMock(t, fixedMock())
	o := baseOptions(tg, client, 8, 4)
	o.Rate, o.NumPrompts, o.WarmupRequests = math.Inf(1), 300, 3
	o.Ramp = &Ramp{Strategy: RampLinear, Start: 20, End: 300}
	run, err := Execute(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	rep := Summarize(run, SLO{TTFT: 10 * time.Second}, nil)
	if rep.Shape != "linear ramp-up 20 → 300 req/s" || len(rep.Stages) != 10 || math.IsInf(rep.Rate, 0) || rep.Rate < 20 || rep.Rate > 300 {
		t.Fatalf("shape %q, %d stages, rate %g", rep.Shape, len(rep.Stages), rep.Rate)
	}
	total := 0
	for i, s := range rep.Stages {
		total += s.Requests
		if s.First != int64(3+i*30) || s.Requests != 30 {
			t.Errorf("stage %d: first %d, %d requests", i+1, s.First, s.Requests)
		}
		if s.Completed != 30 || s.GoodputPercent != 100 {
			t.Errorf("stage %d: %d completed, goodput %g", i+1, s.Completed, s.GoodputPercent)
		}
		mid := (s.RateFrom + s.RateTo) / 2
		if math.Abs(s.PlannedRate-mid)/mid > 0.6 {
			t.Errorf("stage %d: planned %.1f req/s, the ramp says %.1f–%.1f", i+1, s.PlannedRate, s.RateFrom, s.RateTo)
		}
	}
	first, last := rep.Stages[0], rep.Stages[9]
	if total != 300 || last.PlannedRate < 4*first.PlannedRate || last.SentRate < 2*first.SentRate {
		t.Errorf("%d requests; stage 1 planned %.1f sent %.1f, stage 10 planned %.1f sent %.1f",
			total, first.PlannedRate, first.SentRate, last.PlannedRate, last.SentRate)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"open-loop, linear ramp-up 20 → 300 req/s (mean ", "Per stage (10, by request order)", "good %"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	keys := map[string]any{}
	for _, kv := range rep.VLLMKeys() {
		keys[kv.Key] = kv.Value
	}
	if st, _ := keys["llm_prober_stages"].([]map[string]any); len(st) != 10 || st[9]["ramp_rate_to"] != 300.0 {
		t.Errorf("llm_prober_stages = %v", keys["llm_prober_stages"])
	}
	if keys["request_rate"] != rep.Rate {
		t.Errorf("request_rate %v, want the mean planned %g", keys["request_rate"], rep.Rate)
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
		v.Evidence[1] != "goodput first fell below 99% in stage 3 of 3 (planned 9.5 req/s)" {
		t.Errorf("verdict evidence %q", v.Evidence)
	}
	rep.SLO = SLO{}
	if got := rep.FirstStageBelow(99); got != -1 {
		t.Errorf("without SLOs FirstStageBelow = %d", got)
	}
}
