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

// A new process start time is a restart at once; counters growing under
// the same start time, or a gauge going down, is not; without a start
// time, counters or a histogram count that went down and stayed down on
// the next scrape is one.
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

	// No start time at all (llama.cpp, TGI and vLLM with several API
	// servers export none): a histogram's count down, confirmed by the
	// scrapes after it.
	next(vllmExposition(0, 170, 14))
	if at, _ := m.LastRestart("t"); at != at1 {
		t.Fatalf("start time gone, counters up: LastRestart moved to %v", at)
	}
	next(vllmExposition(0, 171, 1))
	if at2, ok := m.LastRestart("t"); !ok || !at2.After(at1) {
		t.Fatalf("histogram count down: LastRestart = %v, %v; want after %v", at2, ok, at1)
	}
	if _, ok := m.LastRestart("nope"); ok {
		t.Error("LastRestart of an unknown target")
	}
}

// Two replicas behind one server_metrics URL (a Service), the scrapes
// landing on either: no restart, with or without start times, however
// often they alternate (issue 22: every scrape was one).
func TestLastRestartTwoReplicas(t *testing.T) {
	now := float64(time.Now().Unix())
	for _, tc := range []struct {
		name   string
		starts [2]float64
	}{
		{"start times", [2]float64{now - 3600, now - 60}},
		{"no start time", [2]float64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				i := n.Add(1)
				w.Header().Set("Content-Type", "text/plain; version=0.0.4")
				if i%2 == 0 {
					_, _ = io.WriteString(w, vllmExposition(tc.starts[0], 5000+int(i), 500+int(i)))
				} else {
					_, _ = io.WriteString(w, vllmExposition(tc.starts[1], 20+int(i), 2+int(i)))
				}
			})
			m := newManager(t)
			tg := target("t", srv.URL)
			tg.ServerMetrics.Interval = model.Duration(5 * time.Millisecond)
			m.Apply([]*config.Target{tg})
			waitScrapes(t, m, "t", 40)
			if at, ok := m.LastRestart("t"); ok {
				t.Fatalf("two replicas taken for a restart at %v", at)
			}
		})
	}
}

// restartState decides from scrapes alone; the clock is the scrapes'.
func TestRestartState(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	snap := func(i int, start float64, ctr float64) *snapshot {
		at := t0.Add(time.Duration(i) * time.Minute)
		s := &snapshot{at: at, sent: at.Add(-time.Second), samples: []sample{{fam: famPromptTokens, value: ctr}}}
		if start != 0 {
			s.samples = append(s.samples, sample{fam: famStartTime, value: start})
		}
		return s
	}
	run := func(snaps ...*snapshot) (restarts []time.Time) {
		var r restartState
		var prev *snapshot
		for _, s := range snaps {
			if at, ok := r.note(prev, s); ok {
				restarts = append(restarts, at)
			}
			prev = s
		}
		return restarts
	}
	before := float64(t0.Unix()) - 3600
	// A start time that the server's clock puts in the future is kept to
	// the scrape that saw it.
	if got := run(snap(0, before, 1), snap(1, 1_900_000_000, 1)); len(got) != 1 || !got[0].Equal(t0.Add(time.Minute)) {
		t.Errorf("future start time: %v; want [%v]", got, t0.Add(time.Minute))
	}
	// Older, or already seen: not a restart; a replica that started
	// before the first scrape, seen late, neither.
	if got := run(snap(0, before, 1), snap(1, before-100, 1), snap(2, before, 1), snap(3, before+60, 1)); len(got) != 0 {
		t.Errorf("older, known or pre-existing start times taken for restarts at %v", got)
	}
	// Each new process once, however often the scrapes alternate.
	s1, s2 := float64(t0.Unix())+30, float64(t0.Unix())+210
	got := run(snap(0, before, 1), snap(1, s1, 1), snap(2, before, 1), snap(3, s1, 1), snap(4, s2, 1), snap(5, s1, 1), snap(6, s2, 1))
	if len(got) != 2 || !got[0].Equal(time.Unix(int64(s1), 0)) || !got[1].Equal(time.Unix(int64(s2), 0)) {
		t.Errorf("restarts %v; want at %v and %v", got, s1, s2)
	}
	// Counters down, up again: another replica; down twice in a row: a
	// restart after the old process last answered (the request of the
	// scrape before the drop went out).
	if got := run(snap(0, 0, 100), snap(1, 0, 5), snap(2, 0, 101), snap(3, 0, 6), snap(4, 0, 102)); len(got) != 0 {
		t.Errorf("a drop that flips back taken for a restart at %v", got)
	}
	got = run(snap(0, 0, 100), snap(1, 0, 105), snap(2, 0, 5), snap(3, 0, 6))
	if want := snap(1, 0, 0).sent; len(got) != 1 || !got[0].Equal(want) {
		t.Errorf("counter down and staying down: %v; want [%v]", got, want)
	}
	// Under one start time (an engine restarted under its API server),
	// the same; two replicas of their own start times never.
	if got := run(snap(0, before, 100), snap(1, before, 5), snap(2, before, 6)); len(got) != 1 {
		t.Errorf("counter down under one start time: %v; want one restart", got)
	}
	if got := run(snap(0, before, 100), snap(1, before-9, 5), snap(2, before-9, 6), snap(3, before, 101)); len(got) != 0 {
		t.Errorf("two replicas' start times and counters taken for restarts at %v", got)
	}
	if got := run(snap(0, 0, 100), snap(1, 0, 105)); len(got) != 0 {
		t.Errorf("counter up taken for a restart at %v", got)
	}
}
