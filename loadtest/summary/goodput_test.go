package summary

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

func TestParseSLOAndConditions(t *testing.T) {
	s, err := ParseSLO("ttft:500 tpot:50,e2el:3000")
	if err != nil || s.TTFT != 500*time.Millisecond || s.TPOT != 50*time.Millisecond || s.E2EL != 3*time.Second {
		t.Fatalf("ParseSLO = %+v, %v", s, err)
	}
	if s.String() != "ttft:500 tpot:50 e2el:3000" {
		t.Errorf("String() = %q", s.String())
	}
	for _, bad := range []string{"ttft", "ttft:x", "itl:5", "ttft:-1"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
	rep := &Report{Completed: 99, Failed: 1, GoodputPercent: 97.5, FailedBy: nil,
		TTFT: stats.Stats{Percentiles: []stats.Percentile{{P: 99, Value: 620}}}}
	for src, want := range map[string]bool{
		"goodput<99": true, "goodput<90": false, "p99_ttft>500": true, "p99_ttft_ms>700": false,
		"failed>0": true, "any-failure": true, "request_throughput>=0": true,
	} {
		c, err := ParseCondition(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, _, err := c.Check(rep); err != nil || got != want {
			t.Errorf("%s: holds = %v, %v; want %v", src, got, err, want)
		}
	}
	c, _ := ParseCondition("p42_nothing>1")
	if _, _, err := c.Check(rep); err == nil {
		t.Error("an unknown key must be an error")
	}
	for _, bad := range []string{"goodput", "goodput<x", "<5"} {
		if _, err := ParseCondition(bad); err == nil {
			t.Errorf("ParseCondition(%q) accepted", bad)
		}
	}
}

// Issue 34: max_itl and a TTFT that grows with the prompt parse, print
// back, and judge a request.
func TestSLOMaxITLAndTTFTPerToken(t *testing.T) {
	slo, err := ParseSLO("ttft:200+0.5/tok tpot:50 max_itl:300")
	if err != nil || slo.String() != "ttft:200+0.5/tok tpot:50 max_itl:300" {
		t.Fatalf("%+v %v: %q", slo, err, slo.String())
	}
	ms := int64(time.Millisecond)
	rec := loadtest.Record{TTFT: 600 * ms, TPOT: 35 * ms, E2EL: 1300 * ms, PlannedPrompt: 1000, PromptTokens: 1024, OutputTokens: 20, ITLCount: 19, MaxGapUs: 250_000}
	if !Good(&rec, slo, 0) { // 600 ≤ 200 + 0.5 × 1024 = 712
		t.Errorf("a 1,024-token prompt with TTFT 600 ms misses %b", Misses(&rec, slo, 0))
	}
	rec.PromptTokens = 0 // the plan's 1,000 tokens: 700 ms
	if !Good(&rec, slo, 0) || Good(&rec, slo, 101*ms) {
		t.Errorf("the planned length should set the objective: %b, %b", Misses(&rec, slo, 0), Misses(&rec, slo, 101*ms))
	}
	rec.MaxGapUs = 600_000 // a stall: TPOT still met
	if m := Misses(&rec, slo, 0); m != 8 {
		t.Errorf("a stalled request misses %b, want max_itl only", m)
	}
	cut := loadtest.Record{Reason: loadtest.ReasonCancelled, Start: 0, End: 400 * ms, TTFT: 50 * ms, MaxGapUs: 350_000}
	if !Missed(&cut, SLO{MaxITL: 300 * time.Millisecond}, 0) || Missed(&cut, SLO{MaxITL: 400 * time.Millisecond}, 0) {
		t.Error("a request cut off mid-stall has missed max_itl only past the objective")
	}
}
