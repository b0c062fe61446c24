package status

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// fakeServer serves readings whose preemption counter rises by 2 a minute,
// and counts how often it is asked.
type fakeServer struct {
	mu    sync.Mutex
	now   *time.Time
	asked map[string]int
	reset bool // the server restarted: its counter began again
}

func (f *fakeServer) read(target string) (ServerReading, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[target]++
	if target != "vllm" {
		return ServerReading{}, false // no server metrics
	}
	at := *f.now
	counter := 2 * at.Sub(t0).Minutes()
	if f.reset {
		counter = 1
	}
	return ServerReading{At: at, KVCacheUsage: 0.5, RequestsRunning: 3, RequestsWaiting: at.Sub(t0).Minutes(), Preemptions: counter}, true
}

// The tracker feeds each (target, module) its own window, reads a target's
// server signals once a minute (only as probes of it finish),
// turns the preemption counter into a rate that survives a server restart,
// and forgets what has not been probed for an hour.
func TestTracker(t *testing.T) {
	now := t0
	srv := &fakeServer{now: &now, asked: map[string]int{}}
	tr := NewTracker(srv.read)
	tr.now = func() time.Time { return now }
	for i := range 4 * 30 { // 30 minutes, every 15 s
		now = t0.Add(time.Duration(i) * 15 * time.Second)
		tr.Observe(&prober.Result{Target: "vllm", Module: "chat", TTFT: 100 * time.Millisecond, HasTTFT: true, E2EL: 900 * time.Millisecond, Good: true,
			ContentChunks: 8, MaxITL: 400 * time.Millisecond})
		tr.Observe(&prober.Result{Target: "vllm", Module: "long", Reason: prober.ReasonTimeoutDecode})
		tr.Observe(&prober.Result{Target: "plain", Module: "chat", TTFT: 50 * time.Millisecond, HasTTFT: true})
	}
	if srv.asked["vllm"] != 30 {
		t.Errorf("server signals read %d times, want once a minute (30)", srv.asked["vllm"])
	}
	chat, ok := tr.Job("vllm", "chat")
	if !ok || chat.Probes != 120 || chat.Good != 120 || chat.TTFT.P99 != 100*time.Millisecond || chat.E2EL.P50 != 900*time.Millisecond ||
		chat.MaxITL.P50 != 400*time.Millisecond {
		t.Errorf("vllm/chat: %+v %v", chat, ok)
	}
	long, _ := tr.Job("vllm", "long")
	if long.Probes != 120 || long.OK != 0 || long.TTFT.N != 0 {
		t.Errorf("vllm/long: %+v, want 120 failed probes and no latencies", long)
	}
	if _, ok := tr.Job("vllm", "other"); ok {
		t.Error("a job never probed has a window")
	}
	s, ok := tr.Server("vllm")
	if !ok || s.Latest.KVCacheUsage != 0.5 || s.Latest.RequestsWaiting != 29 || !s.Latest.At.Equal(t0.Add(29*time.Minute)) {
		t.Errorf("latest server reading %+v %v", s.Latest, ok)
	}
	if math.Abs(s.PreemptionsPerMinute-2) > 1e-9 {
		t.Errorf("preemptions %v/min, want 2", s.PreemptionsPerMinute)
	}
	if s.QueueTrend[Minutes-1] != 29 || !math.IsNaN(s.QueueTrend[Minutes-31]) || s.QueueTrend[Minutes-30] != 0 {
		t.Errorf("queue trend %v", s.QueueTrend)
	}
	if _, ok := tr.Server("plain"); ok {
		t.Error("a target without server metrics has server signals")
	}

	// A restart: the counter drops to 1, which counts as 1 preemption;
	// 59 over the 30.75 minutes from the first reading to this one.
	now = now.Add(time.Minute)
	srv.reset = true
	tr.Observe(&prober.Result{Target: "vllm", Module: "chat", TTFT: time.Millisecond, HasTTFT: true})
	s, _ = tr.Server("vllm")
	if want := (2.0*29 + 1) / 30.75; math.Abs(s.PreemptionsPerMinute-want) > 1e-9 {
		t.Errorf("after a restart: %v/min, want %v", s.PreemptionsPerMinute, want)
	}

	// Past an hour on, only what is still probed is kept.
	now = now.Add(Minutes*time.Minute + time.Second)
	tr.Observe(&prober.Result{Target: "plain", Module: "chat", TTFT: time.Millisecond, HasTTFT: true})
	tr.mu.Lock()
	jobs, servers := len(tr.jobs), len(tr.servers)
	tr.mu.Unlock()
	if jobs != 1 || servers != 1 {
		t.Errorf("after an hour idle: %d job windows, %d server entries; want 1 and 1", jobs, servers)
	}
}

// A target probed before its first scrape gets its server signals from
// the first probe after the scrape, not a minute later.
func TestTrackerReadsServerOnceScraped(t *testing.T) {
	scraped := false
	tr := NewTracker(func(string) (ServerReading, bool) {
		return ServerReading{At: t0.Add(20 * time.Second), KVCacheUsage: 0.3}, scraped
	})
	now := t0
	tr.now = func() time.Time { return now }
	r := &prober.Result{Target: "vllm", Module: "chat", TTFT: time.Millisecond, HasTTFT: true}
	tr.Observe(r)
	if _, ok := tr.Server("vllm"); ok {
		t.Fatal("server signals before any scrape")
	}
	now, scraped = t0.Add(30*time.Second), true
	tr.Observe(r)
	if s, ok := tr.Server("vllm"); !ok || s.Latest.KVCacheUsage != float64(float32(0.3)) {
		t.Errorf("after the scrape, in the same minute: %+v %v", s.Latest, ok)
	}
}

// As in the metrics: a failed warm-up probe is a failure, a successful
// one is good and its latencies stay out of the percentiles.
func TestTrackerWarmup(t *testing.T) {
	now := t0
	tr := NewTracker(nil)
	tr.now = func() time.Time { return now }
	tr.Observe(&prober.Result{Target: "v", Module: "chat", Reason: prober.ReasonHTTP5xx, Warmup: prober.WarmupServerRestart})
	tr.Observe(&prober.Result{Target: "v", Module: "chat", TTFT: 9 * time.Second, HasTTFT: true, SLOViolations: []string{"ttft"}, Warmup: prober.WarmupServerRestart})
	tr.Observe(&prober.Result{Target: "v", Module: "chat", TTFT: 100 * time.Millisecond, HasTTFT: true, Good: true})
	j, _ := tr.Job("v", "chat")
	if j.Probes != 3 || j.OK != 2 || j.Good != 2 || j.TTFT.N != 1 || j.TTFT.P99 != 100*time.Millisecond {
		t.Errorf("%+v; want 3 probes, 2 ok, 2 good, the warm-up's 9 s TTFT left out", j)
	}
}
