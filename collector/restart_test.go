package collector

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// vllmExposition is a small vLLM exposition: the API server's start time
// (omitted when start is 0), a counter and a histogram's count.
func vllmExposition(start float64, promptTokens, requests int) string {
	s := ""
	if start != 0 {
		s = fmt.Sprintf("# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n", start)
	}
	return s + fmt.Sprintf(`# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m",engine="0"} %d
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{model_name="m",engine="0",le="1.0"} %[2]d
vllm:e2e_request_latency_seconds_bucket{model_name="m",engine="0",le="+Inf"} %[2]d
vllm:e2e_request_latency_seconds_sum{model_name="m",engine="0"} %[2]d
vllm:e2e_request_latency_seconds_count{model_name="m",engine="0"} %[2]d
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 0
`, promptTokens, requests)
}

// A new process start time, a counter or a histogram count going down is
// a restart; counters growing under the same start time, or a gauge going
// down, is not.
func TestLastRestart(t *testing.T) {
	var body atomic.Value
	start := float64(time.Now().Add(-time.Hour).Unix())
	body.Store(vllmExposition(start, 100, 10))
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = io.WriteString(w, body.Load().(string))
	})
	m := newManager(t)
	tg := target("t", srv.URL)
	tg.ServerMetrics.Interval = model.Duration(10 * time.Millisecond)
	m.Apply([]*config.Target{tg})
	scrapes := float64(0)
	next := func(b string) {
		t.Helper()
		body.Store(b)
		scrapes += 3 // the one in flight may have read the old body
		waitScrapes(t, m, "t", scrapes)
	}
	next(vllmExposition(start, 100, 10))
	if at, ok := m.LastRestart("t"); ok {
		t.Fatalf("restart at %v with the same data", at)
	}
	next(vllmExposition(start, 150, 12))
	if at, ok := m.LastRestart("t"); ok {
		t.Fatalf("restart at %v when counters grew", at)
	}

	// A new process: its start time, between the scrapes around it.
	before := time.Now()
	next(vllmExposition(float64(before.UnixNano())/1e9, 160, 13))
	at1, ok := m.LastRestart("t")
	if !ok || at1.Before(before.Add(-50*time.Millisecond)) || at1.After(time.Now()) {
		t.Fatalf("new start time: LastRestart = %v, %v; want about %v", at1, ok, before)
	}
	startNow := float64(before.UnixNano()) / 1e9

	// Same start time, a counter down (an engine restarted): the last
	// scrape of the old counters.
	next(vllmExposition(startNow, 5, 14))
	at2, ok := m.LastRestart("t")
	if !ok || !at2.After(at1) || at2.After(time.Now()) {
		t.Fatalf("counter down: LastRestart = %v, %v; want after %v", at2, ok, at1)
	}
	// Only a histogram's count down, no start time at all (llama.cpp, TGI
	// and vLLM with several API servers export none).
	next(vllmExposition(0, 6, 14))
	if at, _ := m.LastRestart("t"); at != at2 {
		t.Fatalf("start time gone, counters up: LastRestart moved to %v", at)
	}
	next(vllmExposition(0, 7, 1))
	if at3, ok := m.LastRestart("t"); !ok || !at3.After(at2) {
		t.Fatalf("histogram count down: LastRestart = %v, %v; want after %v", at3, ok, at2)
	}
	if _, ok := m.LastRestart("nope"); ok {
		t.Error("LastRestart of an unknown target")
	}
}

// A start time that the server's clock puts in the future is kept to
// the scrape that saw it.
func TestRestartOfClampsStartTime(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	snap := func(at time.Time, start float64) *snapshot {
		return &snapshot{at: at, samples: []sample{{fam: famStartTime, value: start}}}
	}
	prev, cur := snap(t0, 1_700_000_000), snap(t0.Add(time.Minute), 1_900_000_000)
	if at, ok := restartOf(prev, cur); !ok || !at.Equal(cur.at) {
		t.Errorf("future start time: %v, %v; want %v", at, ok, cur.at)
	}
	cur = snap(t0.Add(time.Minute), 1_600_000_000) // older: not a restart
	if at, ok := restartOf(prev, cur); ok {
		t.Errorf("older start time taken for a restart at %v", at)
	}
	if _, ok := restartOf(nil, cur); ok {
		t.Error("first scrape taken for a restart")
	}
	// Counters down: the restart came after the old process answered,
	// which was after the request of the last scrape that saw it went out.
	ctr := func(at time.Time, v float64) *snapshot {
		return &snapshot{at: at, sent: at.Add(-time.Second), samples: []sample{{fam: famPromptTokens, value: v}}}
	}
	prev = ctr(t0, 100)
	if at, ok := restartOf(prev, ctr(t0.Add(time.Minute), 5)); !ok || !at.Equal(prev.sent) {
		t.Errorf("counter down: %v, %v; want %v", at, ok, prev.sent)
	}
	if at, ok := restartOf(prev, ctr(t0.Add(time.Minute), 105)); ok {
		t.Errorf("counter up taken for a restart at %v", at)
	}
}
