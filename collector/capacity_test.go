package collector

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// swappableMock serves the current mock vLLM server: replacing it is a
// server restart behind the same URL (its counters start again at 0).
type swappableMock struct {
	mu   sync.Mutex
	mock *mockvllm.Server
}

func (s *swappableMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m := s.mock
	s.mu.Unlock()
	m.ServeHTTP(w, r)
}

func (s *swappableMock) restart(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	m := mockvllm.New(o)
	t.Cleanup(m.Close)
	s.mu.Lock()
	s.mock = m
	s.mu.Unlock()
}

// complete sends n completions to the mock, 8 at a time.
func complete(t *testing.T, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			body := `{"model":"mock-model","prompt":"one two","max_tokens":2,"ignore_eos":true}`
			resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("completion: %s", resp.Status)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// gaugeOf returns the value of the one series of name for target, and
// whether there is one.
func gaugeOf(t *testing.T, g prometheus.Gatherer, name, target string) (float64, bool) {
	t.Helper()
	s := series(t, g, name, map[string]string{"target": target})
	switch len(s) {
	case 0:
		return 0, false
	case 1:
		return s[0].GetGauge().GetValue(), true
	}
	t.Fatalf("%s: %d series for %s", name, len(s), target)
	return 0, false
}

// The headroom over time against the mock vLLM server as the target: no
// value until half a window of scrapes, the served rate from the mock's
// own request_success_total, a server restart (its counters back at 0)
// counted as Prometheus's rate() counts a reset, and an idle server at
// full headroom. The scrapes run on a fake clock: no wall-clock timing.
func TestCapacityHeadroomFromMock(t *testing.T) {
	sw := &swappableMock{}
	sw.restart(t)
	srv := httptest.NewServer(sw)
	t.Cleanup(srv.Close)

	var clock atomic.Int64
	t0 := time.Unix(1_700_000_000, 0)
	clock.Store(t0.UnixNano())
	m := NewManager(nil)
	m.phase = func(time.Duration) time.Duration { return 0 }
	m.now = func() time.Time { return time.Unix(0, clock.Load()) }
	t.Cleanup(m.Stop)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)

	tg := target("mock", srv.URL)
	tg.Capacity = &config.Capacity{Knee: 2, Source: config.KneeSourceFile, Workload: "chat in=2 out=2",
		MinHeadroomRatio: 0.2, RateWindow: model.Duration(5 * time.Minute)}
	complete(t, srv.URL, 5) // before the first scrape: not in any rate
	m.Apply([]*config.Target{tg})
	waitScrapes(t, m, "mock", 1)
	m.mu.Lock()
	s := m.scrapers["mock"]
	m.mu.Unlock()
	scrapeAt := func(d time.Duration) {
		t.Helper()
		clock.Store(t0.Add(d).UnixNano())
		s.scrapeOnce(context.Background())
		if ok, _ := gaugeOf(t, reg, "llm_prober_server_scrape_success", "mock"); ok != 1 {
			t.Fatalf("scrape at +%s failed", d)
		}
	}
	want := func(at string, served float64) {
		t.Helper()
		if knee, ok := gaugeOf(t, reg, "llm_prober_capacity_knee_requests_per_second", "mock"); !ok || knee != 2 {
			t.Errorf("%s: knee = %v, %v; want 2", at, knee, ok)
		}
		rate, okR := gaugeOf(t, reg, "llm_prober_capacity_served_requests_per_second", "mock")
		head, okH := gaugeOf(t, reg, "llm_prober_capacity_headroom_ratio", "mock")
		if math.IsNaN(served) {
			if okR || okH {
				t.Errorf("%s: served %v, headroom %v; want none (too little history)", at, rate, head)
			}
			return
		}
		if !okR || !okH || math.Abs(rate-served) > 1e-9 || math.Abs(head-(1-served/2)) > 1e-9 {
			t.Errorf("%s: served %v (%v), headroom %v (%v); want %v and %v", at, rate, okR, head, okH, served, 1-served/2)
		}
	}
	want("first scrape", math.NaN())

	complete(t, srv.URL, 30)
	scrapeAt(time.Minute)
	want("a minute of a 5m window", math.NaN())

	complete(t, srv.URL, 30)
	scrapeAt(150 * time.Second)
	want("half the window", 60.0/150)

	sw.restart(t) // counters back at 0
	complete(t, srv.URL, 30)
	scrapeAt(300 * time.Second)
	// 90 requests in 300 s: the restarted counter's 30 count whole. Taken
	// as a plain difference they would be 30 − 65 = −35.
	want("after a server restart", 90.0/300)

	scrapeAt(610 * time.Second) // idle since, the window back to the scrape at 300 s
	want("idle", 0)

	info := series(t, reg, "llm_prober_capacity_knee_info", map[string]string{"target": "mock", "source": "file", "workload": "chat in=2 out=2"})
	if len(info) != 1 {
		t.Errorf("knee_info = %v", info)
	}
	if v, ok := gaugeOf(t, reg, "llm_prober_capacity_min_headroom_ratio", "mock"); !ok || v != 0.2 {
		t.Errorf("min_headroom_ratio = %v, %v", v, ok)
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}

	// A reload that changes the knee keeps the history: the new scraper
	// inherits it, so the headroom does not blank for half a window.
	tg2 := *tg
	cp := *tg.Capacity
	cp.Knee = 4
	tg2.Capacity = &cp
	m.Apply([]*config.Target{&tg2})
	if knee, _ := gaugeOf(t, reg, "llm_prober_capacity_knee_requests_per_second", "mock"); knee != 4 {
		t.Errorf("knee after reload = %v, want 4", knee)
	}
	if head, ok := gaugeOf(t, reg, "llm_prober_capacity_headroom_ratio", "mock"); !ok || head != 1 {
		t.Errorf("headroom after reload = %v, %v; want 1 (idle)", head, ok)
	}

	// A target without a knee exports no capacity series.
	m.Apply([]*config.Target{target("mock", srv.URL)})
	if _, ok := gaugeOf(t, reg, "llm_prober_capacity_knee_requests_per_second", "mock"); ok {
		t.Error("knee exported for a target without capacity")
	}
}

// servedRate alone: odd histories.
func TestServedRate(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	const window, stale = 5 * time.Minute, time.Minute
	finished := func(vals ...float64) []sample {
		var out []sample
		for i, v := range vals {
			out = append(out, sample{fam: famRequestsFinished, labels: []string{"m", "0", fmt.Sprint("reason", i)}, value: v})
		}
		return append(out, sample{fam: famRequestsRunning, labels: []string{"m", "0"}, value: 1e9})
	}
	t.Run("empty", func(t *testing.T) {
		var r servedRate
		if _, ok := r.rate(t0, window, stale); ok {
			t.Error("a rate with no scrape")
		}
	})
	t.Run("no counter", func(t *testing.T) {
		var r servedRate
		for i := range 10 {
			r.observe(t0.Add(time.Duration(i)*time.Minute), "llamacpp", finished(), window, false)
		}
		if _, ok := r.rate(t0.Add(9*time.Minute), window, stale); ok {
			t.Error("a rate from a server without the counter")
		}
	})
	t.Run("stale", func(t *testing.T) {
		var r servedRate
		r.observe(t0, "vllm", finished(0), window, false)
		r.observe(t0.Add(3*time.Minute), "vllm", finished(180), window, false)
		if v, ok := r.rate(t0.Add(3*time.Minute), window, stale); !ok || v != 1 {
			t.Errorf("rate = %v, %v; want 1", v, ok)
		}
		// Scrapes failing since: the last rate must not hold.
		if v, ok := r.rate(t0.Add(3*time.Minute+stale+time.Second), window, stale); ok {
			t.Errorf("rate %v from stale data", v)
		}
	})
	t.Run("new reason series", func(t *testing.T) {
		// A reason that appears mid-window (the first abort) adds from
		// its next scrape, as in rate(): its first value predates nothing.
		var r servedRate
		r.observe(t0, "vllm", finished(100), window, false)
		r.observe(t0.Add(2*time.Minute), "vllm", finished(220, 50), window, false)
		r.observe(t0.Add(4*time.Minute), "vllm", finished(340, 50), window, false)
		if v, ok := r.rate(t0.Add(4*time.Minute), window, stale); !ok || v != 1 {
			t.Errorf("rate = %v, %v; want 1", v, ok)
		}
	})
	t.Run("NaN and huge", func(t *testing.T) {
		// A NaN counter (a broken server) must not stick: it makes no
		// increase, and the rate recovers once the counter is sane.
		var r servedRate
		r.observe(t0, "vllm", finished(0), window, false)
		r.observe(t0.Add(time.Minute), "vllm", finished(math.NaN()), window, false)
		r.observe(t0.Add(2*time.Minute), "vllm", finished(1e300), window, false)
		r.observe(t0.Add(3*time.Minute), "vllm", finished(1e300), window, false)
		for i := 4; i < 12; i++ {
			r.observe(t0.Add(time.Duration(i)*time.Minute), "vllm", finished(1e300), window, false)
		}
		if v, ok := r.rate(t0.Add(11*time.Minute), window, stale); !ok || v != 0 {
			t.Errorf("rate = %v, %v; want 0", v, ok)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		var r servedRate
		for i := range 10_000 {
			r.observe(t0.Add(time.Duration(i)*time.Second), "vllm", finished(float64(i)), window, false)
		}
		if len(r.points) > int(window/time.Second)+2 {
			t.Errorf("%d points kept for a %s window at 1 s", len(r.points), window)
		}
		if v, ok := r.rate(t0.Add(9999*time.Second), window, stale); !ok || v != 1 {
			t.Errorf("rate = %v, %v; want 1", v, ok)
		}
		// Scrapes every 10 ms: about maxRatePoints points, the rate the same.
		var f servedRate
		for i := range 60_000 {
			f.observe(t0.Add(time.Duration(i)*10*time.Millisecond), "vllm", finished(float64(i)), window, false)
		}
		if len(f.points) > maxRatePoints*11/10 {
			t.Errorf("%d points kept at 10 ms scrapes", len(f.points))
		}
		if v, ok := f.rate(t0.Add(599990*time.Millisecond), window, stale); !ok || math.Abs(v-100) > 1e-6 {
			t.Errorf("rate = %v, %v; want 100", v, ok)
		}
	})
}

// finishedExposition is a vLLM exposition with one finished-request counter.
func finishedExposition(requests int) string {
	return fmt.Sprintf(`# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="m",engine="0",finished_reason="stop"} %d
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 1
`, requests)
}

// Two replicas behind one server_metrics URL (a Service): the scrapes
// alternate between two processes' counters, and a rate over them would
// read their difference as traffic. No served rate or headroom while the
// window holds such a scrape; once one replica answers for a whole window,
// the rate is its own.
func TestCapacityTwoReplicas(t *testing.T) {
	var body atomic.Value
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = fmt.Fprint(w, body.Load().(string))
	})
	var clock atomic.Int64
	t0 := time.Unix(1_700_000_000, 0)
	m := NewManager(nil)
	m.phase = func(time.Duration) time.Duration { return time.Hour } // the test scrapes
	m.now = func() time.Time { return time.Unix(0, clock.Load()) }
	t.Cleanup(m.Stop)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	tg := target("svc", srv.URL)
	tg.Capacity = &config.Capacity{Knee: 10, Source: config.KneeSourceConfig, MinHeadroomRatio: 0.2, RateWindow: model.Duration(5 * time.Minute)}
	m.Apply([]*config.Target{tg})
	m.mu.Lock()
	s := m.scrapers["svc"]
	m.mu.Unlock()
	scrape := func(sec int, requests int) {
		t.Helper()
		clock.Store(t0.Add(time.Duration(sec) * time.Second).UnixNano())
		body.Store(finishedExposition(requests))
		s.scrapeOnce(context.Background())
	}
	// Replica A serves 1 req/s from 1000, replica B 1 req/s from 10.
	for sec := 0; sec <= 180; sec += 30 {
		if sec%60 == 0 {
			scrape(sec, 1000+sec)
		} else {
			scrape(sec, 10+sec)
		}
		if v, ok := gaugeOf(t, reg, "llm_prober_capacity_served_requests_per_second", "svc"); ok {
			t.Errorf("+%ds, replicas alternating: served rate %v", sec, v)
		}
	}
	// Then A alone: a value once the window no longer holds the last flip.
	for sec := 210; sec <= 600; sec += 30 {
		scrape(sec, 1000+sec)
		v, ok := gaugeOf(t, reg, "llm_prober_capacity_served_requests_per_second", "svc")
		switch {
		case sec < 510 && ok:
			t.Errorf("+%ds, the window holds a flip: served rate %v", sec, v)
		case sec >= 510 && (!ok || math.Abs(v-1) > 1e-9):
			t.Errorf("+%ds, one replica for a window: served rate %v, %v; want 1", sec, v, ok)
		}
	}
	if knee, ok := gaugeOf(t, reg, "llm_prober_capacity_knee_requests_per_second", "svc"); !ok || knee != 10 {
		t.Errorf("knee = %v, %v", knee, ok)
	}
}
