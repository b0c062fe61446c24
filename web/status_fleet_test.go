package web

import (
	"testing"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/targets"
)

func TestFleetLine(t *testing.T) {
	u := New(Options{})
	if u.fleetLine() != "" {
		t.Error("a line without a fleet")
	}
	u.o.Fleet = targets.NewFleet(log.NewNopLogger(), prometheus.NewRegistry(), targets.Shard{Count: 4, Index: 1}, nil)
	cfg := &config.Config{}
	for i := range 1200 {
		cfg.Targets = append(cfg.Targets, &config.Target{Name: thousands(i)})
	}
	u.o.Fleet.Derive(cfg)
	got := u.fleetLine()
	s := u.o.Fleet.Summary()
	want := "shard 1 of 4: " + thousands(s.Targets) + " of 1,200 targets"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if thousands(1234567) != "1,234,567" || thousands(12) != "12" {
		t.Error("thousands")
	}
}
