package prober

import (
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// holdServer streams a short answer after hold, tracking concurrency
// overall and per target (the X-Target header the test adds via URL path).
type holdServer struct {
	hold             time.Duration
	inFlight, peak   atomic.Int64
	mu               sync.Mutex
	perTarget, first map[string]int
	firstAt          map[string]time.Time
	requests         atomic.Int64
}

func (h *holdServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Reading the body lets net/http notice a client that goes away.
	_, _ = io.Copy(io.Discard, r.Body)
	// Targets differ by a path prefix: /<target>/v1/chat/completions.
	target, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if rest != "v1/chat/completions" || r.URL.RawQuery != "" {
		http.Error(w, "unexpected path "+r.URL.String(), http.StatusNotFound)
		return
	}
	n := h.inFlight.Add(1)
	// Released before the answer's last bytes go out: a client that read
	// them may start its next request before this handler returns, and
	// counting that overlap here would blame the scheduler for this
	// server's lag (seen at load 27).
	var release sync.Once
	done := func() {
		release.Do(func() {
			h.inFlight.Add(-1)
			h.mu.Lock()
			h.perTarget[target]--
			h.mu.Unlock()
		})
	}
	for p := h.peak.Load(); n > p; p = h.peak.Load() {
		if h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	h.requests.Add(1)
	h.mu.Lock()
	h.perTarget[target]++
	if h.perTarget[target] > h.first[target] {
		h.first[target] = h.perTarget[target]
	}
	if _, ok := h.firstAt[target]; !ok {
		h.firstAt[target] = time.Now()
	}
	h.mu.Unlock()
	defer done()
	select {
	case <-time.After(h.hold):
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	done()
	fmt.Fprint(w, contentEvent("a")+contentEvent("b")+finishEvent+doneEvent)
	// Like a real server: [DONE] goes out on its own, and the chunked
	// terminator follows when the handler returns.
	w.(http.Flusher).Flush()
	time.Sleep(time.Millisecond)
}

func newHoldServer(t *testing.T, hold time.Duration) (*holdServer, *httptest.Server) {
	h := &holdServer{hold: hold, perTarget: map[string]int{}, first: map[string]int{}, firstAt: map[string]time.Time{}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

// schedConfig builds n targets on one module. The target name is the
// URL's path so the server can tell targets apart.
func schedConfig(url string, n int, interval, timeout time.Duration, maxInFlight int) *config.Config {
	cfg := &config.Config{
		Global:  config.Global{MaxConcurrentProbes: maxInFlight},
		Modules: map[string]*config.Module{"chat": chatModule()},
	}
	for i := range n {
		name := fmt.Sprintf("t%d", i)
		cfg.Targets = append(cfg.Targets, &config.Target{
			Name: name, URL: url + "/" + name, Model: "m", Modules: []string{"chat"},
			Interval: model.Duration(interval), Timeout: model.Duration(timeout),
		})
	}
	return cfg
}

func newTestScheduler(t *testing.T) (*Scheduler, *Metrics) {
	m := NewMetrics(prometheus.NewRegistry())
	s := NewScheduler(log.NewNopLogger(), m, "test", nil)
	t.Cleanup(func() { s.Stop(5 * time.Second) })
	return s, m
}

func TestSchedulerConcurrencyCapAndNoOverlap(t *testing.T) {
	h, srv := newHoldServer(t, 150*time.Millisecond)
	s, m := newTestScheduler(t)
	// The timeout is far above the hold: a probe that timed out frees its
	// slot at once, while the server notices the cancel only later.
	s.Apply(schedConfig(srv.URL, 8, 200*time.Millisecond, 5*time.Second, 2))
	time.Sleep(1500 * time.Millisecond)
	if p := h.peak.Load(); p > 2 {
		t.Errorf("peak in-flight %d exceeds max_concurrent_probes 2", p)
	}
	h.mu.Lock()
	for target, p := range h.first {
		if p > 1 {
			t.Errorf("target %s overlapped itself (%d at once)", target, p)
		}
	}
	h.mu.Unlock()
	var skipped float64
	for i := range 8 {
		skipped += seriesValue(t, m, "llm_prober_probes_skipped_total", fmt.Sprintf("t%d", i), "m", "chat", SkipConcurrency)
	}
	if skipped == 0 {
		t.Error("8 targets on 2 slots: expected concurrency_limit skips")
	}

}

// Targets start at random phases over the interval, not all at once.
func TestSchedulerSpreadsStarts(t *testing.T) {
	h, srv := newHoldServer(t, 0)
	s, _ := newTestScheduler(t)
	const n = 40
	s.Apply(schedConfig(srv.URL, n, time.Second, time.Second, 64))
	time.Sleep(1200 * time.Millisecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.firstAt) != n {
		t.Fatalf("%d of %d targets probed in the first interval", len(h.firstAt), n)
	}
	var lo, hi time.Time
	for _, at := range h.firstAt {
		if lo.IsZero() || at.Before(lo) {
			lo = at
		}
		if at.After(hi) {
			hi = at
		}
	}
	if spread := hi.Sub(lo); spread < 500*time.Millisecond {
		t.Errorf("first probes spread over %v; want them spread across the 1s interval", spread)
	}
}

// A reload keeps an unchanged target's schedule and counters, restarts a
// changed one, and deletes a removed one's series.
func TestSchedulerApplyReload(t *testing.T) {
	_, srv := newHoldServer(t, 0)
	s, m := newTestScheduler(t)
	cfg := schedConfig(srv.URL, 2, 100*time.Millisecond, 100*time.Millisecond, 8)
	s.Apply(cfg)
	time.Sleep(450 * time.Millisecond)
	probes := func(target string) float64 {
		return seriesValue(t, m, "llm_prober_probes_total", target, "m", "chat")
	}
	before := probes("t0")
	if before == 0 {
		t.Fatal("no probes before reload")
	}
	next := schedConfig(srv.URL, 1, 100*time.Millisecond, 100*time.Millisecond, 8) // t1 removed
	s.Apply(next)
	if got := probes("t0"); got < before {
		t.Errorf("t0 counter went from %v to %v across a reload", before, got)
	}
	if n := seriesCount(t, m, "llm_prober_probes_total"); n != 1 {
		t.Errorf("%d probes_total series after removing t1, want 1", n)
	}
	if st := s.Statuses(); len(st) != 1 || st[0].Target != "t0" {
		t.Errorf("statuses after reload: %+v", st)
	}
	// An identical config keeps the running job (its phase and
	// connection pool); a changed module restarts it.
	kept := s.jobs[jobKey{"t0", "chat"}]
	s.Apply(schedConfig(srv.URL, 1, 100*time.Millisecond, 100*time.Millisecond, 8))
	if s.jobs[jobKey{"t0", "chat"}] != kept {
		t.Error("an unchanged job was restarted by a reload")
	}
	changed := schedConfig(srv.URL, 1, 100*time.Millisecond, 100*time.Millisecond, 8)
	changed.Modules["chat"].MaxTokens = 3
	s.Apply(changed)
	if s.jobs[jobKey{"t0", "chat"}] == kept {
		t.Error("a job whose module changed kept running with the old module")
	}
}

// Stop cancels probes stuck on a stalled server promptly.
func TestSchedulerStopCancelsInFlight(t *testing.T) {
	h, srv := newHoldServer(t, time.Hour)
	s, _ := newTestScheduler(t)
	s.Apply(schedConfig(srv.URL, 3, 50*time.Millisecond, 50*time.Millisecond, 8))
	for deadline := time.Now().Add(2 * time.Second); h.requests.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if !s.Stop(2 * time.Second) {
		t.Fatal("Stop timed out")
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("Stop took %v", el)
	}
	if s.Running() {
		t.Error("Running() after Stop")
	}
}

// A target whose HTTP client cannot be built fails its probes with the
// reason, while the other targets keep probing.
func TestSchedulerBadClientFailsOnlyItsTarget(t *testing.T) {
	_, srv := newHoldServer(t, 0)
	s, m := newTestScheduler(t)
	cfg := schedConfig(srv.URL, 2, 100*time.Millisecond, 100*time.Millisecond, 8)
	cfg.Targets[1].HTTPClientConfig.TLSConfig.CAFile = "/nonexistent/ca.pem"
	s.Apply(cfg)
	time.Sleep(350 * time.Millisecond)
	if v := seriesValue(t, m, "llm_prober_probes_total", "t0", "m", "chat"); v == 0 {
		t.Error("healthy target t0 was not probed")
	}
	if v := seriesValue(t, m, "llm_prober_probe_failures_total", "t1", "m", "chat", string(ReasonOther)); v == 0 {
		t.Error("target t1 with an unreadable CA file did not fail its probes")
	}
	for _, st := range s.Statuses() {
		if st.Target == "t1" && (st.Last == nil || !strings.Contains(st.Last.Err.Error(), "ca.pem")) {
			t.Errorf("t1 status does not name the problem: %+v", st.Last)
		}
	}
	// Once the file exists, a reload of the same config recovers.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	cfg.Targets[1].HTTPClientConfig.TLSConfig.CAFile = ca
	s.Apply(cfg)
	pemCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})
	if err := os.WriteFile(ca, pemCA, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Apply(cfg)
	before := seriesValue(t, m, "llm_prober_probes_total", "t1", "m", "chat")
	time.Sleep(350 * time.Millisecond)
	if seriesValue(t, m, "llm_prober_probes_total", "t1", "m", "chat") == before {
		t.Fatal("t1 not probed after the fix")
	}
	for _, st := range s.Statuses() {
		if st.Target == "t1" && !st.Last.Success() {
			t.Errorf("t1 still failing after its client was fixed: %v", st.Last.Err)
		}
	}
}

// Consecutive probes of one target reuse their keep-alive connection, so
// TTFT does not include a new TCP handshake every time.
func TestProbesReuseConnections(t *testing.T) {
	h, _ := newHoldServer(t, 0)
	srv, conns := connCountingServer(t, h)
	s, m := newTestScheduler(t)
	s.Apply(schedConfig(srv.URL, 1, 50*time.Millisecond, 50*time.Millisecond, 8))
	time.Sleep(400 * time.Millisecond)
	if n := seriesValue(t, m, "llm_prober_probes_total", "t0", "m", "chat"); n < 4 || conns.Load() != 1 {
		t.Errorf("%v probes used %d connections, want 1", n, conns.Load())
	}
}

// A connection idle for longer than keep_alive_timeout is closed: each
// probe at a longer interval opens its own.
func TestKeepAliveTimeoutClosesIdleConnections(t *testing.T) {
	h, _ := newHoldServer(t, 0)
	srv, conns := connCountingServer(t, h)
	s, m := newTestScheduler(t)
	cfg := schedConfig(srv.URL, 1, 150*time.Millisecond, 100*time.Millisecond, 8)
	cfg.Global.KeepAliveTimeout = model.Duration(30 * time.Millisecond)
	s.Apply(cfg)
	time.Sleep(700 * time.Millisecond)
	n := seriesValue(t, m, "llm_prober_probes_total", "t0", "m", "chat")
	if n < 3 || float64(conns.Load()) < n {
		t.Errorf("%v probes used %d connections, want one each", n, conns.Load())
	}
}

// A probe skipped because no slot was free waited until its next slot;
// that slot then runs, and the skip is not also counted as an overlap.
func TestSchedulerConcurrencySkipIsNotOverlap(t *testing.T) {
	_, srv := newHoldServer(t, 0)
	s, m := newTestScheduler(t)
	busy := make(chan struct{}, 1)
	busy <- struct{}{} // the only slot is taken
	s.slots.Store(&busy)
	s.Apply(schedConfig(srv.URL, 1, 100*time.Millisecond, 100*time.Millisecond, 1))
	time.Sleep(650 * time.Millisecond)
	skip := func(reason string) float64 {
		return seriesValue(t, m, "llm_prober_probes_skipped_total", "t0", "m", "chat", reason)
	}
	if c, o := skip(SkipConcurrency), skip(SkipOverlap); c < 4 || o != 0 {
		t.Errorf("slot held for 6 intervals: %v concurrency_limit and %v overlap skips, want >= 4 and 0", c, o)
	}
	<-busy
	time.Sleep(250 * time.Millisecond)
	if seriesValue(t, m, "llm_prober_probes_total", "t0", "m", "chat") == 0 {
		t.Error("no probe ran once the slot was free")
	}
}

// A target answering errors still gets its connection reused: error bodies
// are read to the end.
func TestErrorResponsesReuseConnections(t *testing.T) {
	srv, conns := connCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"error":{"message":"overloaded %s"}}`, strings.Repeat("x", 8<<10))
	}))
	s, m := newTestScheduler(t)
	s.Apply(schedConfig(srv.URL, 1, 50*time.Millisecond, 50*time.Millisecond, 8))
	time.Sleep(400 * time.Millisecond)
	if n := seriesValue(t, m, "llm_prober_probe_failures_total", "t0", "m", "chat", string(ReasonHTTP5xx)); n < 4 || conns.Load() != 1 {
		t.Errorf("%v failed probes used %d connections, want 1", n, conns.Load())
	}
}

// connCountingServer serves h and counts the TCP connections it accepts.
func connCountingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	conns := &atomic.Int64{}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
}

// Targets with identical client settings share one client; a setting that
// differs only in a secret's value (which the redacted YAML hides) does not.
func TestTargetsShareIdenticalClients(t *testing.T) {
	s, _ := newTestScheduler(t)
	cfg := schedConfig("http://127.0.0.1:1", 4, time.Hour, time.Second, 8)
	for i, tok := range []string{"a", "a", "b", ""} {
		if tok != "" {
			cfg.Targets[i].HTTPClientConfig.Authorization = &commoncfg.Authorization{Type: "Bearer", Credentials: commoncfg.Secret(tok)}
		}
	}
	s.Apply(cfg)
	c := func(i int) *http.Client { return s.clients[fmt.Sprintf("t%d", i)].client }
	if c(0) != c(1) {
		t.Error("identical settings got separate clients")
	}
	if c(0) == c(2) || c(0) == c(3) || c(2) == c(3) {
		t.Error("different credentials share a client")
	}
	// A new keep-alive timeout rebuilds every client.
	before := c(3)
	next := schedConfig("http://127.0.0.1:1", 4, time.Hour, time.Second, 8)
	next.Targets = cfg.Targets
	next.Global.KeepAliveTimeout = model.Duration(time.Minute)
	s.Apply(next)
	if c(3) == before {
		t.Error("client kept across a keep_alive_timeout change")
	}
}
