package config

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

func TestWarmupDefaultsAndOverrides(t *testing.T) {
	c := mustLoad(t, `
global:
  warmup: {probes: 5}
modules:
  m:
    messages: [{role: user, content: hi}]
targets:
  - {name: inherits, url: http://127.0.0.1:8000, model: x, modules: [m]}
  - {name: longer, url: http://127.0.0.1:8001, model: x, modules: [m], warmup: {duration: 10m}}
  - {name: off, url: http://127.0.0.1:8002, model: x, modules: [m], warmup: {probes: 0}}
`)
	want := map[string]Warmup{
		"inherits": {5, model.Duration(DefaultWarmupDuration)},
		"longer":   {5, model.Duration(10 * time.Minute)},
		"off":      {0, model.Duration(DefaultWarmupDuration)},
	}
	if g := c.Global.Warmup; g != (Warmup{5, model.Duration(DefaultWarmupDuration)}) {
		t.Errorf("global warmup %+v", g)
	}
	for _, tg := range c.Targets {
		if tg.Warmup != want[tg.Name] {
			t.Errorf("%s: warmup %+v, want %+v", tg.Name, tg.Warmup, want[tg.Name])
		}
		if tg.Warmup.Enabled() != (tg.Name != "off") {
			t.Errorf("%s: Enabled() = %v", tg.Name, tg.Warmup.Enabled())
		}
	}
	// Unset everywhere: the defaults.
	d := mustLoad(t, minimal)
	if w := d.Targets[0].Warmup; w != (Warmup{DefaultWarmupProbes, model.Duration(DefaultWarmupDuration)}) {
		t.Errorf("default warmup %+v", w)
	}
	a, b := *c.Targets[0], *c.Targets[0]
	b.Warmup.Probes++
	if a.Equal(&b) {
		t.Error("targets differing in warmup compare equal")
	}
}

func TestWarmupErrors(t *testing.T) {
	for yml, want := range map[string]string{
		"global:\n  warmup: {probes: -1}\n":             "test.yml:2: global.warmup.probes: probes must be between 0 (off) and 100, got -1",
		"global:\n  warmup:\n    duration: 0s\n":        "test.yml:3: global.warmup.duration: duration must be greater than 0",
		"global:\n  warmup: {probes: 3, duraton: 1m}\n": "test.yml:2: global.warmup.duraton: unknown field",
	} {
		_, err := Load([]byte(yml+strings.TrimPrefix(minimal, "\n")), "test.yml")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want prefix %q", yml, err, want)
		}
	}
	_, err := Load([]byte(minimal+"    warmup: {probes: 101}\n"), "test.yml")
	if err == nil || !strings.Contains(err.Error(), "targets[0].warmup.probes: probes must be between 0 (off) and 100, got 101") {
		t.Errorf("target probes 101: got %v", err)
	}
}
