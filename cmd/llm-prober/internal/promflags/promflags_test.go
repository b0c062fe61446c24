package promflags

import (
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// plan has --rate-interval (default 5m); bench, which reads no rates,
// neither shows nor accepts it.
func TestPrometheusFlags(t *testing.T) {
	app := kingpin.New("t", "")
	plan, bench := app.Command("plan", ""), app.Command("bench", "")
	p := Add(plan)
	AddRateInterval(plan, p)
	b := Add(bench)
	if _, err := app.Parse([]string{"plan", "--prometheus.url", "http://127.0.0.1:9090"}); err != nil {
		t.Fatal(err)
	}
	if time.Duration(p.RateInterval) != 5*time.Minute || time.Duration(p.Window) != 7*24*time.Hour {
		t.Errorf("plan: rate interval %v, window %v", p.RateInterval, p.Window)
	}
	if _, err := app.Parse([]string{"bench", "--prometheus.url", "http://127.0.0.1:9090", "--window", "2m"}); err != nil {
		t.Fatal(err)
	}
	if cfg, err := b.Config(); err != nil || cfg.Window != 2*time.Minute {
		t.Errorf("bench --window 2m: %+v, %v", cfg, err)
	}
	if _, err := app.Parse([]string{"bench", "--rate-interval", "1m"}); err == nil {
		t.Error("bench accepted --rate-interval")
	}
}
