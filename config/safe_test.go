package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSafeConfigReload(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	s := NewSafeConfig(reg)
	s.now = func() time.Time { return time.Unix(1700000000, 0) }
	path := filepath.Join(t.TempDir(), "llm-prober.yml")
	write := func(yml string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gauges := func(ok, ts float64) {
		t.Helper()
		if got := testutil.ToFloat64(s.success); got != ok {
			t.Errorf("last_reload_successful %g, want %g", got, ok)
		}
		if got := testutil.ToFloat64(s.successTime); got != ts {
			t.Errorf("last_reload_success_timestamp_seconds %g, want %g", got, ts)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "llm_prober_config_last_reload_successful", "llm_prober_config_last_reload_success_timestamp_seconds"); n != 2 || err != nil {
		t.Fatalf("registered metrics: %d, %v", n, err)
	}
	if s.Get() != nil {
		t.Fatal("config before the first load")
	}

	write(minimal)
	if changed, err := s.Reload(path); !changed || err != nil {
		t.Fatalf("first load: changed=%v err=%v", changed, err)
	}
	first := s.Get()
	gauges(1, 1700000000)

	if changed, err := s.Reload(path); changed || err != nil {
		t.Fatalf("unchanged file: changed=%v err=%v", changed, err)
	}

	write(minimal + "    timeout: 1h\n")
	s.now = func() time.Time { return time.Unix(1700000100, 0) }
	if changed, err := s.Reload(path); changed || err == nil {
		t.Fatalf("bad file: changed=%v err=%v", changed, err)
	}
	if s.Get() != first {
		t.Error("a failed reload replaced the config")
	}
	gauges(0, 1700000000)

	write(minimal + "    interval: 10s\n")
	if changed, err := s.Reload(path); !changed || err != nil {
		t.Fatalf("good change: changed=%v err=%v", changed, err)
	}
	if got := s.Get().Targets[0].Interval.String(); got != "10s" {
		t.Errorf("interval after reload %s", got)
	}
	gauges(1, 1700000100)

	if _, err := s.Reload(filepath.Join(t.TempDir(), "missing.yml")); err == nil {
		t.Error("missing file: no error")
	}
	gauges(0, 1700000100)
}
