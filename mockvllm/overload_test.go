package mockvllm

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOverloadQueuesAndPreempts(t *testing.T) {
	o := fastOptions()
	o.TTFT = Dist{Mean: 5 * time.Millisecond}
	o.ITL = Dist{Mean: 5 * time.Millisecond}
	o.MaxRunning = 8
	o.KVBlocks, o.BlockSize = 24, 4
	h := start(t, o)

	const reqs, maxTokens = 16, 40
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results []string
	)
	for range reqs {
		wg.Go(func() {
			resp := h.post(context.Background(), "/v1/chat/completions", chatBody(maxTokens, nil))
			defer resp.Body.Close()
			st := readSSE(resp.Body)
			var text string
			for _, e := range st.events[:len(st.events)-1] {
				var c wireChunk
				_ = json.Unmarshal([]byte(e), &c) // not Fatal: off the test goroutine
				text += c.text()
			}
			mu.Lock()
			defer mu.Unlock()
			if st.events[len(st.events)-1] != "[DONE]" {
				t.Errorf("stream did not complete: %q", st.events)
			}
			results = append(results, text)
		})
	}

	var maxWaiting, maxKV, preempt float64
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			mf := h.metrics()
			maxWaiting = max(maxWaiting, value(mf, "vllm:num_requests_waiting"))
			maxKV = max(maxKV, value(mf, "vllm:kv_cache_usage_perc"))
			preempt = value(mf, "vllm:num_preemptions_total")
		}
	}()
	wg.Wait()
	close(stop)
	<-polled

	if maxWaiting < 1 || maxKV < 0.8 || preempt < 1 {
		t.Errorf("overload not visible: max waiting %v, max kv %v, preemptions %v", maxWaiting, maxKV, preempt)
	}
	// Preempted requests resume where they were: no lost or repeated tokens.
	want := tokenText(0, maxTokens)
	for _, got := range results {
		if got != want {
			t.Errorf("text after preemption:\n got %q\nwant %q", got, want)
		}
	}
	mf := h.metrics()
	checks := []struct {
		name  string
		label []string
		want  float64
	}{
		{"vllm:num_requests_running", nil, 0},
		{"vllm:num_requests_waiting", nil, 0},
		{"vllm:kv_cache_usage_perc", nil, 0},
		{"vllm:request_success_total", []string{"finished_reason", "length"}, reqs},
		{"vllm:generation_tokens_total", nil, reqs * maxTokens},
		{"vllm:prompt_tokens_total", nil, reqs * 5},
		{"vllm:request_queue_time_seconds", nil, reqs},
		{"vllm:e2e_request_latency_seconds", nil, reqs},
		{"vllm:time_to_first_token_seconds", nil, reqs},
		{"vllm:inter_token_latency_seconds", nil, reqs * (maxTokens - 1)},
		{"vllm:num_preemptions_total", nil, float64(h.s.Stats().Preemptions)},
	}
	for _, c := range checks {
		if got := value(mf, c.name, c.label...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.label, got, c.want)
		}
	}
	if !strings.HasPrefix(want, " the quick") {
		t.Errorf("unexpected pseudo-words %q", want)
	}
}
