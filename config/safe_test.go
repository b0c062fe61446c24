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
	if err := s.Reload(path); err != nil {
		t.Fatalf("first load: %v", err)
	}
	gauges(1, 1700000000)

	// An unchanged file is decoded again: ${ENV} secrets may have changed.
	t.Setenv("SAFE_TEST_TOKEN", "first")
	write(minimal + "    http_client_config:\n      authorization:\n        credentials: ${SAFE_TEST_TOKEN}\n")
	if err := s.Reload(path); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SAFE_TEST_TOKEN", "second")
	if err := s.Reload(path); err != nil {
		t.Fatalf("unchanged file: %v", err)
	}
	if got := string(s.Get().Targets[0].HTTPClientConfig.Authorization.Credentials); got != "second" {
		t.Errorf("secret after reloading an unchanged file %q, want the new environment's", got)
	}
	first := s.Get()

	write(minimal + "    timeout: 1h\n")
	s.now = func() time.Time { return time.Unix(1700000100, 0) }
	if err := s.Reload(path); err == nil {
		t.Fatal("bad file: no error")
	}
	if s.Get() != first {
		t.Error("a failed reload replaced the config")
	}
	gauges(0, 1700000000)

	write(minimal + "    interval: 10s\n")
	if err := s.Reload(path); err != nil {
		t.Fatalf("good change: %v", err)
	}
	if got := s.Get().Targets[0].Interval.String(); got != "10s" {
		t.Errorf("interval after reload %s", got)
	}
	gauges(1, 1700000100)

	if err := s.Reload(filepath.Join(t.TempDir(), "missing.yml")); err == nil {
		t.Error("missing file: no error")
	}
	gauges(0, 1700000100)
}
