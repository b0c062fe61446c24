package mockvllm

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"testing"
	"time"
)

func TestSaturationFromSettings(t *testing.T) {
	o := DefaultOptions()
	o.TTFT, o.ITL, o.BatchSlowdown = Dist{Mean: 20 * time.Millisecond}, Dist{Mean: 10 * time.Millisecond}, 0
	o.PerSequence, o.MaxRunning, o.KVBlocks = 2*time.Millisecond, 16, 0
	if got := o.Step(16); got != 42*time.Millisecond {
		t.Errorf("Step(16) = %v, want 10ms + 16×2ms", got)
	}
	if got := o.ServiceTime(16, 16, 8); got != 20*time.Millisecond+7*42*time.Millisecond {
		t.Errorf("ServiceTime = %v", got)
	}
	p := o
	p.PrefillPerToken = 100 * time.Microsecond
	if got := p.ServiceTime(16, 16, 8); got != 20*time.Millisecond+1600*time.Microsecond+7*42*time.Millisecond {
		t.Errorf("ServiceTime with PrefillPerToken = %v", got)
	}
	if got := o.SaturationRate(16, 8); math.Abs(got-16/0.314) > 1e-9 {
		t.Errorf("SaturationRate = %g, want %g", got, 16/0.314)
	}
	// Without a running limit, throughput tends to 1/(steps × PerSequence).
	o.MaxRunning = 0
	if got := o.SaturationRate(16, 8); math.Abs(got-1/(7*0.002)) > 1e-9 {
		t.Errorf("unlimited SaturationRate = %g, want %g", got, 1/(7*0.002))
	}
	// The KV cache limits running requests too: 64 blocks of 16, 24 tokens each → 32.
	o.KVBlocks, o.BlockSize = 64, 16
	if got := o.MaxRunningFor(16, 8); got != 32 {
		t.Errorf("MaxRunningFor = %d, want 32", got)
	}
}

// Each decode step takes ITL + PerSequence × running.
func TestPerSequenceSlowsSteps(t *testing.T) {
	o := fastOptions()
	o.ITL, o.BatchSlowdown, o.PerSequence = Dist{Mean: 10 * time.Millisecond}, time.Millisecond, 5*time.Millisecond
	e := &engine{o: &o, running: make([]*request, 4)}
	if got := e.batchDelay(); got != 20*time.Millisecond {
		t.Errorf("4 running: extra step time %v, want 4 × 5 ms (BatchSlowdown ignored)", got)
	}
	o.PerSequence = 0
	if got := e.batchDelay(); got != 3*time.Millisecond {
		t.Errorf("without PerSequence: %v, want 3 × BatchSlowdown", got)
	}

	// On the wire: a request alone takes at least TTFT + 9 × (10 + 5) ms
	// from admission to its 10th token (the schedule is absolute, so
	// lateness can only add).
	o = fastOptions()
	o.TTFT, o.ITL, o.BatchSlowdown, o.PerSequence = Dist{Mean: time.Millisecond}, Dist{Mean: 10 * time.Millisecond}, 0, 5*time.Millisecond
	h := start(t, o)
	resp := h.post(t.Context(), "/v1/completions", map[string]any{"model": o.Model, "prompt": "x",
		"max_tokens": 10, "ignore_eos": true, "stream": true}, "X-Request-Id", "ps")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	tr, _ := h.s.Emissions("ps")
	var last time.Time
	for _, c := range tr.Chunks {
		if c.Content {
			last = c.At
		}
	}
	if span := last.Sub(tr.Scheduled); span < time.Millisecond+9*15*time.Millisecond-time.Millisecond {
		t.Errorf("admission to 10th token %v, want ≥ 136 ms", span)
	}
}

func TestTokenizeEndpoint(t *testing.T) {
	h := start(t, fastOptions())
	for _, c := range []struct {
		body any
		want int
	}{
		{map[string]any{"model": "mock-model", "prompt": "one two  three"}, 3},
		{map[string]any{"messages": []map[string]string{{"role": "user", "content": "a b"}, {"role": "user", "content": "c"}}}, 3},
		{map[string]any{"content": "llama cpp style"}, 3},
	} {
		resp := h.post(t.Context(), "/tokenize", c.body)
		var out struct {
			Count       int   `json:"count"`
			MaxModelLen int   `json:"max_model_len"`
			Tokens      []int `json:"tokens"`
		}
		err := json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || out.Count != c.want || len(out.Tokens) != c.want || out.MaxModelLen == 0 {
			t.Errorf("%v: %d %+v %v", c.body, resp.StatusCode, out, err)
		}
	}
	resp := h.post(t.Context(), "/tokenize", map[string]any{"model": "other", "prompt": "x"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown model: %d", resp.StatusCode)
	}
}
