package prober

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// connCounter serves the mock and records the connections it accepts and
// which of them the client left open (idle) after its request.
type connCounter struct {
	url  string
	mu   sync.Mutex
	seen map[net.Conn]bool
	// requestsOn counts generation requests per connection, to see reuse.
	requestsOn map[net.Conn]int
	closed     map[net.Conn]bool
}

func newConnCounter(t *testing.T) *connCounter {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.Model = "m"
	o.TTFT, o.ITL = mockvllm.Dist{Mean: time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks = 1 << 12
	mock := mockvllm.New(o)
	c := &connCounter{seen: map[net.Conn]bool{}, requestsOn: map[net.Conn]int{}, closed: map[net.Conn]bool{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only generation requests count: a vLLM target's prompt sizing
		// also calls /tokenize.
		if r.URL.Path == "/v1/chat/completions" {
			conn := r.Context().Value(servedConnKey{}).(net.Conn)
			c.mu.Lock()
			c.requestsOn[conn]++
			c.mu.Unlock()
		}
		mock.ServeHTTP(w, r)
	}))
	srv.Config.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, servedConnKey{}, conn)
	}
	srv.Config.ConnState = func(conn net.Conn, s http.ConnState) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch s {
		case http.StateNew:
			c.seen[conn] = true
		case http.StateClosed, http.StateHijacked:
			c.closed[conn] = true
		}
	}
	srv.Start()
	t.Cleanup(func() { mock.Close(); srv.Close() })
	c.url = srv.URL
	return c
}

type servedConnKey struct{}

// open counts the connections the server has not seen closed.
func (c *connCounter) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen) - len(c.closed)
}

func (c *connCounter) counts() (conns, maxRequests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.requestsOn {
		maxRequests = max(maxRequests, n)
	}
	return len(c.seen), maxRequests
}

// waitOpen waits (bounded) for the server to see the client's close.
func (c *connCounter) waitOpen(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.open() != want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := c.open(); got != want {
		t.Fatalf("%d connections open after the probes, want %d", got, want)
	}
}

func probeWith(t *testing.T, client *http.Client, target *config.Target, m *config.Module, o RunOptions) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if r := RunWithOptions(ctx, client, target, m, NewProbeID(), "test", o); !r.Success() {
		t.Fatalf("probe: %s: %v", r.Reason, r.Err)
	}
}

func TestCloseConnectionLeavesNothingIdle(t *testing.T) {
	for _, close := range []bool{false, true} {
		c := newConnCounter(t)
		target := testTarget(c.url)
		client, err := NewClient(target, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			probeWith(t, client, target, chatModule(), RunOptions{CloseConnection: close})
		}
		conns, most := c.counts()
		if close {
			// Each probe its own connection, none left behind.
			c.waitOpen(t, 0)
			if conns != 3 || most != 1 {
				t.Errorf("closing: %d connections, at most %d requests on one; want 3 and 1", conns, most)
			}
		} else {
			c.waitOpen(t, 1)
			if conns != 1 || most != 3 {
				t.Errorf("keeping: %d connections, at most %d requests on one; want 1 and 3", conns, most)
			}
		}
		client.CloseIdleConnections()
	}
}

// The warm request of a paired probe reuses the cold one's connection, so
// its TTFT has no handshake in it; the pair's connection closes after it.
func TestPairedProbeClosesAfterItsWarmRequest(t *testing.T) {
	c := newConnCounter(t)
	target := testTarget(c.url)
	target.Backend = backend.VLLM
	client, err := NewClient(target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	m := prefillModule("paired", config.APIChat, config.CachePaired, 64)
	profile := NewPromptProfile()
	for range 2 {
		probeWith(t, client, target, m, RunOptions{Profile: profile, CloseConnection: true})
		c.waitOpen(t, 0)
	}
	if _, most := c.counts(); most < 2 {
		t.Errorf("at most %d requests on one connection: the warm request did not reuse the cold one's", most)
	}
}

func TestJobClosesConnectionWhenProbesComeRarely(t *testing.T) {
	for _, c := range []struct {
		interval  time.Duration
		modules   int
		keepAlive time.Duration
		want      bool
	}{
		{60 * time.Second, 1, 10 * time.Second, true},
		{5 * time.Second, 1, 10 * time.Second, false},
		{30 * time.Second, 4, 10 * time.Second, false}, // one probe every 7.5 s on average
		{30 * time.Second, 3, 10 * time.Second, true},
		{10 * time.Second, 0, 10 * time.Second, true},
	} {
		j := &job{target: &config.Target{Interval: modelDuration(c.interval), Modules: make([]string, c.modules)},
			client: &targetClient{keepAlive: c.keepAlive}}
		if got := j.closesConnection(); got != c.want {
			t.Errorf("interval %v, %d modules, keep-alive %v: close %v, want %v", c.interval, c.modules, c.keepAlive, got, c.want)
		}
	}
}
