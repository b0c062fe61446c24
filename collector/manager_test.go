package collector

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Collect must return at once while a scrape hangs.
func TestSlowTargetDoesNotBlockCollect(t *testing.T) {
	entered := make(chan struct{}, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	m, reg := newTestManager(t)
	tg := target("slow", srv.URL)
	tg.ServerMetrics.Timeout = model.Duration(8 * time.Second)
	m.Apply([]*config.Target{tg})
	<-entered // the scrape is now hanging
	start := time.Now()
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Gather took %v while a scrape hung", d)
	}
	// Stop must not wait for the hanging scrape's timeout either.
	start = time.Now()
	m.Stop()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Stop took %v", d)
	}
}

func TestApplyKeepsChangesAndRemoves(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(goodBody)) })
	m, reg := newTestManager(t)
	a, b := target("a", srv.URL), target("b", srv.URL)
	a.ServerMetrics.Interval = model.Duration(20 * time.Millisecond)
	m.Apply([]*config.Target{a, b})
	waitScrapes(t, m, "a", 3)
	waitScrapes(t, m, "b", 1)
	m.mu.Lock()
	sa := m.scrapers["a"]
	m.mu.Unlock()

	// Same config again (fresh structs, as after a reload): nothing restarts.
	a2, b2 := target("a", srv.URL), target("b", srv.URL)
	a2.ServerMetrics.Interval = a.ServerMetrics.Interval
	m.Apply([]*config.Target{a2, b2})
	m.mu.Lock()
	same := m.scrapers["a"] == sa
	m.mu.Unlock()
	if !same {
		t.Fatal("unchanged target was restarted")
	}

	// Change a (new path), drop b: a keeps its counters, b's series go.
	before := series(t, reg, "llm_prober_server_scrapes_total", map[string]string{"target": "a"})[0].GetCounter().GetValue()
	a3 := target("a", srv.URL)
	a3.ServerMetrics.Path = "/other"
	m.Apply([]*config.Target{a3})
	waitScrapes(t, m, "a", before+1)
	after := series(t, reg, "llm_prober_server_scrapes_total", map[string]string{"target": "a"})[0].GetCounter().GetValue()
	if after < before+1 {
		t.Errorf("scrapes_total went from %v to %v across a config change", before, after)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, met := range mf.GetMetric() {
			if labelMap(met)["target"] == "b" {
				t.Errorf("removed target b still has %s", mf.GetName())
			}
		}
	}
	// Disabling server metrics removes the target too.
	a4 := target("a", srv.URL)
	a4.ServerMetrics.Enabled = false
	m.Apply([]*config.Target{a4})
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Errorf("after disabling: %d series, err %v", n, err)
	}
}

func TestApplyAfterStopIsNoop(t *testing.T) {
	m := NewManager(nil)
	m.Stop()
	m.Apply([]*config.Target{target("a", "http://127.0.0.1:1")})
	if len(m.scrapers) != 0 {
		t.Error("Apply started a scraper after Stop")
	}
}

func TestBackendForcedAndDetected(t *testing.T) {
	// llamacpp.prom also holds one vllm: family (cache_config_info).
	srv := serveFile(t, "llamacpp.prom")
	m, reg := newTestManager(t)
	auto, forced, openai := target("auto", srv.URL), target("forced", srv.URL), target("openai", srv.URL)
	forced.Backend = backend.VLLM
	openai.Backend = backend.OpenAI
	m.Apply([]*config.Target{auto, forced, openai})
	for _, n := range []string{"auto", "forced", "openai"} {
		waitScrapes(t, m, n, 1)
	}
	for target, backend := range map[string]string{"auto": "llamacpp", "forced": "vllm", "openai": "openai"} {
		if got, ok := m.Backend(target); !ok || got != backend {
			t.Errorf("Backend(%q) = %q, %v; want %q", target, got, ok, backend)
		}
		if got := series(t, reg, "llm_prober_server_backend_info", map[string]string{"target": target, "backend": backend}); len(got) != 1 {
			t.Errorf("backend_info{target=%q,backend=%q}: %v", target, backend, got)
		}
	}
	if got := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": "auto", "backend": "llamacpp"}); len(got) != 1 {
		t.Errorf("auto-detected llamacpp: %v", got)
	}
	for _, n := range []string{"forced", "openai"} {
		if got := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": n}); len(got) != 0 {
			t.Errorf("%s: the forced mapping must win over detection, got %v", n, got)
		}
	}
}

func TestUnknownExposition(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("# TYPE up gauge\nup 1\n")) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("u", srv.URL)})
	waitScrapes(t, m, "u", 1)
	if b, ok := m.Backend("u"); ok {
		t.Errorf("Backend of an unknown exposition: %q", b)
	}
	if got := series(t, reg, "llm_prober_server_backend_info", map[string]string{"backend": "unknown"}); len(got) != 1 {
		t.Errorf("backend_info: %v", got)
	}
}

func TestSpecEqualIgnoresProxyFunc(t *testing.T) {
	a := target("a", "http://127.0.0.1:1")
	a.HTTPClientConfig.ProxyFromEnvironment = true
	s1 := newSpec(a)
	if a.HTTPClientConfig.Proxy() == nil { // caches the unexported func
		t.Fatal("no proxy func")
	}
	if !s1.equal(newSpec(a)) {
		t.Error("a used proxy config compares unequal")
	}
	a.ServerMetrics.Passthrough = []*config.Regexp{{Regexp: regexp.MustCompile("x"), Source: "x"}}
	if s1.equal(newSpec(a)) {
		t.Error("passthrough change not detected")
	}
}

// A changed target's new scraper starts at a random phase; until then the
// target keeps its last data instead of losing its series.
func TestChangedTargetKeepsDataUntilItsPhase(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(goodBody)) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("a", srv.URL)})
	waitScrapes(t, m, "a", 1)
	m.phase = func(time.Duration) time.Duration { return time.Hour }
	changed := target("a", srv.URL)
	changed.ServerMetrics.Timeout = model.Duration(6 * time.Second)
	m.Apply([]*config.Target{changed})
	if got := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": "a"}); len(got) != 1 {
		t.Errorf("after a config change, requests_running = %v, want the last data", got)
	}
	if got := series(t, reg, "llm_prober_server_scrape_success", map[string]string{"target": "a"}); len(got) != 1 || got[0].GetGauge().GetValue() != 1 {
		t.Errorf("after a config change, scrape_success = %v, want the last scrape's 1", got)
	}
}
