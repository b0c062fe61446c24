package prober

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// probeAt is a finished probe that started at t0+at.
func probeAt(t0 time.Time, at time.Duration, reason Reason, status int) *Result {
	return &Result{Start: t0.Add(at), Reason: reason, HTTPStatus: status, Good: reason == ReasonNone}
}

// The warm-up state machine, probe by probe.
func TestWarmupClassify(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	cfg := config.Warmup{Probes: 3, Duration: model.Duration(time.Minute)}
	type step struct {
		at      time.Duration // probe start after t0
		reason  Reason
		status  int
		restart time.Duration // source's latest restart after t0; 0 = none
		want    string        // expected trigger
	}
	ok, down, slow := ReasonNone, ReasonConnect, ReasonTimeoutFirstToken
	for name, steps := range map[string][]step{
		"success after success is not warm-up": {
			{at: 0, reason: ok}, {at: 10 * time.Second, reason: ok}, {at: 20 * time.Second, reason: ok},
		},
		"a failure streak ending opens N probes": {
			{at: 0, reason: ok}, {at: 10 * time.Second, reason: down}, {at: 20 * time.Second, reason: down},
			{at: 30 * time.Second, reason: slow, want: WarmupFailureStreak}, // reached: warm-up, failing
			{at: 40 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 50 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 60 * time.Second, reason: ok},
		},
		"a 502 from a gateway is down, a 503 and a slow server are not": {
			{at: 0, reason: ReasonHTTP5xx, status: 503}, {at: 10 * time.Second, reason: ok},
			{at: 20 * time.Second, reason: slow}, {at: 30 * time.Second, reason: ok},
			{at: 40 * time.Second, reason: ReasonHTTP5xx, status: 502},
			{at: 50 * time.Second, reason: ok, want: WarmupFailureStreak},
		},
		"duration ends the warm-up before the probe count": {
			{at: 0, reason: ReasonDNS},
			{at: 10 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 69 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 71 * time.Second, reason: ok},
		},
		"down again during warm-up ends it; none reopens within duration": {
			{at: 0, reason: down},
			{at: 10 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 20 * time.Second, reason: ReasonTimeoutConnect},
			{at: 30 * time.Second, reason: ok}, // a crash loop gets no second warm-up
			{at: 40 * time.Second, reason: ok},
			{at: 75 * time.Second, reason: down},
			{at: 80 * time.Second, reason: ok, want: WarmupFailureStreak}, // a duration later
		},
		"restarts during a warm-up are covered by it": {
			{at: 0, reason: ok},
			{at: 10 * time.Second, reason: ok, restart: 5 * time.Second, want: WarmupServerRestart},
			{at: 20 * time.Second, reason: ok, restart: 15 * time.Second, want: WarmupServerRestart},
			{at: 30 * time.Second, reason: ok, restart: 25 * time.Second, want: WarmupServerRestart},
			{at: 40 * time.Second, reason: ok, restart: 35 * time.Second},
			{at: 50 * time.Second, reason: ok, restart: 45 * time.Second},
		},
		"a server restart opens N probes from the first started after it": {
			{at: 0, reason: ok},
			{at: 10 * time.Second, reason: ok, restart: 15 * time.Second}, // started before the restart
			{at: 20 * time.Second, reason: ok, restart: 15 * time.Second, want: WarmupServerRestart},
			{at: 30 * time.Second, reason: ok, restart: 15 * time.Second, want: WarmupServerRestart},
			{at: 40 * time.Second, reason: ok, restart: 15 * time.Second, want: WarmupServerRestart},
			{at: 50 * time.Second, reason: ok, restart: 15 * time.Second},
		},
		"a restart seen too late opens nothing": {
			{at: 0, reason: ok},
			{at: 90 * time.Second, reason: ok, restart: 5 * time.Second},
			{at: 100 * time.Second, reason: ok, restart: 5 * time.Second},
		},
		"a restart seen after its failure streak's warm-up is not warmed up twice": {
			{at: 0, reason: down},
			{at: 10 * time.Second, reason: ok, want: WarmupFailureStreak},
			{at: 20 * time.Second, reason: ok, restart: 5 * time.Second, want: WarmupFailureStreak},
			{at: 30 * time.Second, reason: ok, restart: 5 * time.Second, want: WarmupFailureStreak},
			{at: 40 * time.Second, reason: ok, restart: 5 * time.Second},
			{at: 50 * time.Second, reason: ok, restart: 5 * time.Second},
		},
	} {
		t.Run(name, func(t *testing.T) {
			w := &warmup{cfg: cfg}
			opened := 0
			for i, s := range steps {
				var at time.Time
				if s.restart != 0 {
					at = t0.Add(s.restart)
				}
				got, open := w.classify(probeAt(t0, s.at, s.reason, s.status), at, s.restart != 0)
				if got != s.want {
					t.Errorf("probe %d (at %v, %s): warm-up %q, want %q", i, s.at, s.reason, got, s.want)
				}
				if open {
					opened++
				}
			}
			if opened > 0 && w.trigger == "" && w.pending != "" {
				t.Errorf("left pending %q", w.pending)
			}
		})
	}
	// probes: 0 turns it off.
	w := &warmup{cfg: config.Warmup{Probes: 0, Duration: cfg.Duration}}
	w.classify(probeAt(t0, 0, ReasonConnect, 0), time.Time{}, false)
	if got, _ := w.classify(probeAt(t0, time.Second, ReasonNone, 0), t0, true); got != "" {
		t.Errorf("warm-up %q with probes: 0", got)
	}
}

// restartableMock is a mock vLLM behind a fixed URL that can be replaced
// by a new instance (a restarted server: its counters start from zero),
// or, with startTime, keep its instance and only report a new process
// start time (the mocks share the test's process, hence its start time).
// The first slow requests after a restart take extra time, as a real
// server's first requests after a start do.
type restartableMock struct {
	cur       atomic.Pointer[mockvllm.Server]
	slow      atomic.Int64 // requests still to slow down
	startTime atomic.Int64 // Unix seconds served as process_start_time_seconds; 0: the real one
	all       []*mockvllm.Server
	mu        sync.Mutex
}

var startTimeLine = regexp.MustCompile(`(?m)^process_start_time_seconds .*$`)

func (m *restartableMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" && m.startTime.Load() != 0 {
		r.Header.Del("Accept-Encoding")
		rec := httptest.NewRecorder()
		m.cur.Load().ServeHTTP(rec, r)
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		_, _ = w.Write(startTimeLine.ReplaceAll(rec.Body.Bytes(),
			[]byte(fmt.Sprintf("process_start_time_seconds %d", m.startTime.Load()))))
		return
	}
	if r.URL.Path != "/metrics" && m.slow.Add(-1) >= 0 {
		time.Sleep(200 * time.Millisecond)
	}
	m.cur.Load().ServeHTTP(w, r)
}

// newStartTime restarts the server in its metrics only: same instance and
// counters, a later process start time.
func (m *restartableMock) newStartTime(slow int) {
	m.slow.Store(int64(slow))
	m.startTime.Store(time.Now().Unix())
}

func (m *restartableMock) restart(slow int) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	s := mockvllm.New(o)
	m.mu.Lock()
	m.all = append(m.all, s)
	m.mu.Unlock()
	m.slow.Store(int64(slow))
	m.cur.Store(s)
}

func (m *restartableMock) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.all {
		s.Close()
	}
}

// warmupCounts reads the warm-up outcomes and the SLO counters of the
// one schedule.
type warmupCounts struct {
	warmup                            map[string]float64
	probes, good, failures, violation float64
	ttft                              uint64
}

func readWarmupCounts(t *testing.T, m *Metrics) warmupCounts {
	t.Helper()
	mfs, err := m.Gather()
	if err != nil {
		t.Fatal(err)
	}
	c := warmupCounts{warmup: map[string]float64{}}
	for _, mf := range mfs {
		for _, mt := range mf.Metric {
			v := mt.GetCounter().GetValue()
			switch mf.GetName() {
			case "llm_prober_warmup_probes_total":
				for _, l := range mt.Label {
					if l.GetName() == "outcome" {
						c.warmup[l.GetValue()] = v
					}
				}
			case "llm_prober_probes_total":
				c.probes += v
			case "llm_prober_probes_good_total":
				c.good += v
			case "llm_prober_probe_failures_total":
				c.failures += v
			case "llm_prober_slo_violations_total":
				c.violation += v
			case "llm_prober_time_to_first_token_seconds":
				c.ttft += mt.GetHistogram().GetSampleCount()
			}
		}
	}
	return c
}

// End to end on loopback: a mock vLLM restarted under the prober (a new
// instance, its counters reset), seen by the collector scraping it: the
// next N probes, slow ones included, count as warm-up and the SLO
// latency series do not move, the probes count as good; before the
// restart and after the warm-up every probe counts as usual.
func TestWarmupAfterMockRestart(t *testing.T) {
	t.Run("new instance", func(t *testing.T) { testWarmupAfterMockRestart(t, false) })
	// Counters that keep growing: only the start time tells.
	t.Run("new start time", func(t *testing.T) { testWarmupAfterMockRestart(t, true) })
}

func testWarmupAfterMockRestart(t *testing.T, startTimeOnly bool) {
	mock := &restartableMock{}
	mock.restart(0)
	if startTimeOnly {
		mock.startTime.Store(time.Now().Add(-time.Hour).Unix())
	}
	t.Cleanup(mock.close)
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)

	const n = 3
	tg := &config.Target{Name: "t", URL: srv.URL, Model: "mock-model", Modules: []string{"chat"},
		Interval: model.Duration(100 * time.Millisecond), Timeout: model.Duration(time.Second),
		Warmup: config.Warmup{Probes: n, Duration: model.Duration(time.Minute)},
		ServerMetrics: config.ServerMetrics{Enabled: true, Interval: model.Duration(10 * time.Millisecond),
			Timeout: model.Duration(time.Second)}}
	mod := chatModule()
	mod.MaxTokens = 4
	mod.SLO.TTFT = model.Duration(150 * time.Millisecond) // the slow first requests miss it
	cfg := &config.Config{Global: config.Global{MaxConcurrentProbes: 4},
		Modules: map[string]*config.Module{"chat": mod}, Targets: []*config.Target{tg}}

	servers := collector.NewManager(nil)
	t.Cleanup(servers.Stop)
	servers.Apply(cfg.Targets)

	var (
		mu      sync.Mutex
		results []*Result
		swapped = -1 // index of the last probe before the restart
	)
	done := make(chan struct{})
	metrics := NewMetrics(prometheus.NewRegistry())
	s := NewScheduler(log.NewNopLogger(), metrics, "test", func(r *Result) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, r.summary())
		switch {
		case len(results) == 4:
			// Restart between two probes of the job: none is in flight.
			swapped = len(results) - 1
			if startTimeOnly {
				mock.newStartTime(n)
			} else {
				mock.restart(n)
			}
		case swapped >= 0 && len(results) == swapped+1+n+3:
			close(done)
		}
	})
	s.DetectRestarts(servers)
	// The collector must see the restart before the first probe after it
	// ends: it scrapes every 10 ms, that probe takes 200 ms more.
	runUntil(t, s, cfg, done)
	mu.Lock()
	defer mu.Unlock()
	var normal, normalGood, normalViolations float64
	for i, r := range results {
		want := ""
		if i > swapped && i <= swapped+n {
			want = WarmupServerRestart
		}
		if r.Warmup != want {
			t.Errorf("probe %d (restart after probe %d): warm-up %q, want %q (%s %v)", i, swapped, r.Warmup, want, r.Reason, r.Err)
		}
		if !r.Success() {
			t.Errorf("probe %d failed: %s %v", i, r.Reason, r.Err)
		}
		if r.Warmup == "" {
			normal++
			if r.Good {
				normalGood++
			}
			normalViolations += float64(len(r.SLOViolations))
		} else if r.Good {
			t.Errorf("warm-up probe %d met its SLO: it was not one of the slow ones", i)
		}
	}
	if _, ok := servers.LastRestart("t"); !ok {
		t.Error("the collector saw no restart")
	}
	c := readWarmupCounts(t, metrics)
	if c.warmup[WarmupSLOViolation] != n || c.warmup[WarmupGood] != 0 || c.warmup[WarmupFailure] != 0 {
		t.Errorf("warm-up outcomes %v, want %d slo_violation (the slow first requests)", c.warmup, n)
	}
	if c.probes != normal+n || c.good != normalGood+n || c.failures != 0 || c.violation != normalViolations || float64(c.ttft) != normal {
		t.Errorf("SLO counters %+v; want probes %v good %v, no failures, %v violations, %v TTFTs: warm-up latencies counted",
			c, normal+n, normalGood+n, normalViolations, normal)
	}
}

// A failure streak ending, without server metrics: the server answers 502
// through its gateway, then serves again; the next N probes are warm-up.
func TestWarmupAfterFailureStreak(t *testing.T) {
	var served atomic.Int64
	h, _ := newHoldServer(t, 0)
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) <= 2 {
			http.Error(w, "upstream connect error", http.StatusBadGateway)
			return
		}
		r.URL.Path = "/t0" + r.URL.Path
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(gw.Close)
	cfg := schedConfig(gw.URL, 1, 50*time.Millisecond, time.Second/20, 4)
	cfg.Targets[0].URL = gw.URL
	cfg.Targets[0].Warmup = config.Warmup{Probes: 2, Duration: model.Duration(time.Minute)}
	var mu sync.Mutex
	var got []string
	done := make(chan struct{})
	metrics := NewMetrics(prometheus.NewRegistry())
	s := NewScheduler(log.NewNopLogger(), metrics, "test", func(r *Result) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(r.Reason)+"/"+r.Warmup)
		if len(got) == 6 {
			close(done)
		}
	})
	runUntil(t, s, cfg, done)
	mu.Lock()
	defer mu.Unlock()
	want := []string{"http_5xx/", "http_5xx/", "/failure_streak", "/failure_streak", "/", "/"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("probes (reason/warm-up) %q, want %q", got[:len(want)], want)
		}
	}
	c := readWarmupCounts(t, metrics)
	if c.warmup[WarmupGood] != 2 || c.failures != 2 || c.probes != float64(len(got)) || c.good != float64(len(got)-2) || c.ttft != uint64(len(got)-4) {
		t.Errorf("counts %+v after %v: want every probe counted, the 2 warm-up ones good without their TTFT, the 2 failures", c, got)
	}
}

// runUntil applies cfg to s and stops s once done is closed, failing the
// test if that takes more than 20 s.
func runUntil(t *testing.T, s *Scheduler, cfg *config.Config, done <-chan struct{}) {
	t.Helper()
	t.Cleanup(func() { s.Stop(5 * time.Second) })
	s.Apply(cfg)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("probes did not run")
	}
	s.Stop(5 * time.Second)
}
