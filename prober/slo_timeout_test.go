package prober

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// sloViolationCount reads llm_prober_slo_violations_total{slo=slo} of the
// only schedule in g.
func sloViolationCount(t *testing.T, g prometheus.Gatherer, slo string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "llm_prober_slo_violations_total" {
			continue
		}
		for _, mt := range mf.Metric {
			for _, lp := range mt.Label {
				if lp.GetName() == "slo" && lp.GetValue() == slo {
					return mt.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no llm_prober_slo_violations_total{slo=%q}", slo)
	return 0
}

// A probe that times out has necessarily missed the latency SLOs it waited
// past: a server that sends headers and then hangs (a queued request) is a
// TTFT and E2EL violation, one that hangs after its first token an E2EL
// violation. Before, both counted only as failures, and a target whose
// every probe timed out read 0 % on its latency SLIs.
func TestTimedOutProbesCountAsSLOViolations(t *testing.T) {
	const chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"
	hang := event{delay: time.Hour, raw: chunk}
	cases := []struct {
		name       string
		events     []event
		slo        map[string]time.Duration
		wantReason Reason
		want       map[string]float64
	}{
		{"hangs before the first token", []event{hang},
			map[string]time.Duration{"ttft": 50 * time.Millisecond, "tpot": time.Millisecond, "e2el": 100 * time.Millisecond, "max_itl": 50 * time.Millisecond},
			ReasonTimeoutFirstToken, map[string]float64{"ttft": 1, "tpot": 0, "e2el": 1, "max_itl": 0}},
		{"hangs while decoding", []event{{raw: chunk}, hang},
			map[string]time.Duration{"ttft": 50 * time.Millisecond, "tpot": time.Millisecond, "e2el": 100 * time.Millisecond, "max_itl": 100 * time.Millisecond},
			ReasonTimeoutDecode, map[string]float64{"ttft": 0, "tpot": 0, "e2el": 1, "max_itl": 1}},
		{"timeout shorter than the SLOs", []event{hang},
			map[string]time.Duration{"ttft": time.Hour, "e2el": time.Hour},
			ReasonTimeoutFirstToken, map[string]float64{"ttft": 0, "tpot": 0, "e2el": 0, "max_itl": 0}},
		{"decode timeout shorter than max_itl", []event{{raw: chunk}, hang},
			map[string]time.Duration{"e2el": time.Hour, "max_itl": time.Hour},
			ReasonTimeoutDecode, map[string]float64{"e2el": 0, "max_itl": 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := sseServer(t, "text/event-stream", c.events)
			r := runProbe(t, srv.URL, chatModule(), 300*time.Millisecond)
			if r.Reason != c.wantReason {
				t.Fatalf("reason %q, want %q (err %v)", r.Reason, c.wantReason, r.Err)
			}
			reg := prometheus.NewPedanticRegistry()
			m := NewMetrics(reg)
			m.Init(r.Target, r.Model, r.Module, 15*time.Second, c.slo)
			m.Record(r, time.Now())
			for slo, want := range c.want {
				if got := sloViolationCount(t, m, slo); got != want {
					t.Errorf("slo_violations_total{slo=%q} = %v, want %v", slo, got, want)
				}
			}
			if got := seriesValue(t, m, "llm_prober_probe_failures_total", r.Target, r.Model, r.Module, string(c.wantReason)); got != 1 {
				t.Errorf("probe_failures_total{reason=%q} = %v, want 1", c.wantReason, got)
			}
		})
	}
}
