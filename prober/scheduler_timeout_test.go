package prober

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// With the default timeout, a target that never answers is still probed at
// every slot: the timeout leaves the probe time to end before the next.
func TestHungTargetProbedEverySlotWithDefaultTimeout(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // so net/http notices the client leave
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	cfg, err := config.Load([]byte(fmt.Sprintf(`
global: {interval: 1s}
modules: {chat: {messages: [{role: user, content: hi}]}}
targets: [{name: hung, url: %q, model: m, modules: [chat]}]
`, srv.URL)), "test.yml")
	if err != nil {
		t.Fatal(err)
	}
	if to, iv := cfg.Targets[0].Timeout, cfg.Targets[0].Interval; to >= iv {
		t.Fatalf("default timeout %s is not below the interval %s", to, iv)
	}
	s, m := newTestScheduler(t)
	s.Apply(cfg)
	time.Sleep(5500 * time.Millisecond)
	s.Stop(5 * time.Second)
	if n := seriesValue(t, m, "llm_prober_probes_skipped_total", "hung", "m", "chat", SkipOverlap); n != 0 {
		t.Errorf("%v slots skipped as overlaps: a hung target is probed every other slot", n)
	}
	// Slots at a random phase within the first second, then every second.
	if n := requests.Load(); n < 4 {
		t.Errorf("%d probes in 5.5 s at a 1 s interval", n)
	}
}
