package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// A ramp against the mock: the report splits it in tenths whose planned
// rate follows the ramp, the sent rate loosely, and the verdict's rate is
// the mean planned one, not "all at once".
func TestRampRunStages(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	o := runkit.BaseOptions(tg, client, 8, 4)
	o.Rate, o.NumPrompts, o.WarmupRequests = math.Inf(1), 300, 3
	o.Ramp = &loadtest.Ramp{Strategy: loadtest.RampLinear, Start: 20, End: 300}
	run, err := loadtest.Execute(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	rep := summary.Summarize(run, summary.SLO{TTFT: 10 * time.Second}, nil)
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
	// The plan rises ≥ 4×; what a client sends at load 20 under -race is
	// the machine's, so the sent rate only has to rise.
	if total != 300 || last.PlannedRate < 4*first.PlannedRate || last.SentRate <= first.SentRate {
		t.Errorf("%d requests; stage 1 planned %.1f sent %.1f, stage 10 planned %.1f sent %.1f",
			total, first.PlannedRate, first.SentRate, last.PlannedRate, last.SentRate)
	}
	var text bytes.Buffer
	WriteText(rep, &text)
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
