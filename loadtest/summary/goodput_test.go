package summary

import (
	"testing"
	"time"

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
