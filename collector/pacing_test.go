package collector

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// Scrapes of all targets together never exceed the Manager's cap, and
// every target still gets scraped.
func TestScrapesShareOneConcurrencyCap(t *testing.T) {
	const targets, limit = 24, 4
	var inFlight, peak atomic.Int32
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p; p = peak.Load() {
			if peak.CompareAndSwap(p, n) {
				break
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte(goodBody))
	})
	m := newManager(t, MaxConcurrentScrapes(limit))
	var ts []*config.Target
	for i := range targets {
		ts = append(ts, target(fmt.Sprintf("t%02d", i), srv.URL))
	}
	m.Apply(ts)
	deadline := time.Now().Add(10 * time.Second)
	for inFlight.Load() < limit && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // room for scrapes over the cap to show up
	close(release)
	for _, tg := range ts {
		waitScrapes(t, m, tg.Name, 1)
	}
	if p := peak.Load(); p > limit {
		t.Errorf("%d scrapes in flight at once, cap %d", p, limit)
	}
}

// Each new scraper starts at the Manager's phase for its interval.
func TestScrapersStartAtAPhase(t *testing.T) {
	m := newManager(t)
	got := make(chan time.Duration, 2)
	m.phase = func(iv time.Duration) time.Duration { got <- iv; return 0 }
	m.Apply([]*config.Target{target("a", "http://127.0.0.1:1")})
	select {
	case iv := <-got:
		if iv != time.Hour {
			t.Errorf("phase asked for interval %v, want the target's 1h", iv)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scraper started without a phase")
	}
}

func TestRandomPhaseSpreadsOverTheInterval(t *testing.T) {
	tenths := map[time.Duration]bool{}
	for range 200 {
		p := randomPhase(time.Minute)
		if p < 0 || p >= time.Minute {
			t.Fatalf("phase %v outside [0, 1m)", p)
		}
		tenths[p/(6*time.Second)] = true
	}
	if len(tenths) < 8 { // 200 draws miss a tenth with probability ~1e-9
		t.Errorf("200 phases fell in only %d tenths of the interval", len(tenths))
	}
	if randomPhase(0) != 0 {
		t.Error("no interval, no phase")
	}
}
