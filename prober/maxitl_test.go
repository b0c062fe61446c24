package prober

import (
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// A stream that freezes for 400 ms after its 8th token and otherwise
// flows at 2 ms a token meets a 100 ms TPOT SLO (its mean gap is under
// 10 ms) but misses a 300 ms max_itl: the probe is successful and not
// good, and its worst gap is the stall. (Bounds only from below: load
// lengthens gaps, it never shortens the stall; TPOT would need 6.3 s of
// decoding to pass 100 ms.)
func TestStalledStreamPassesTPOTFailsMaxITL(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.Model = testTarget("").Model
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond}, 0
	o.DecodeStall = mockvllm.DecodeStall{Every: 1, For: 400 * time.Millisecond, AfterTokens: 8}
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); srv.Close() })

	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = 64, true
	m.SLO.TPOT, m.SLO.MaxITL = model.Duration(100*time.Millisecond), model.Duration(300*time.Millisecond)
	r := runProbe(t, srv.URL, m, time.Minute)
	if !r.Success() {
		t.Fatalf("probe failed: %s %v", r.Reason, r.Err)
	}
	if r.OutputTokens != 64 || r.TPOT >= 100*time.Millisecond {
		t.Fatalf("%d tokens, TPOT %v: the setup should pass TPOT", r.OutputTokens, r.TPOT)
	}
	if r.MaxITL < 400*time.Millisecond || r.MaxITL != slices.Max(r.ITL) {
		t.Errorf("max ITL %v, want the stall (≥ 400ms) and the largest of the gaps (%v)", r.MaxITL, slices.Max(r.ITL))
	}
	if r.Good || !slices.Equal(r.SLOViolations, []string{"max_itl"}) {
		t.Errorf("good %v, violations %v; want only max_itl missed", r.Good, r.SLOViolations)
	}
}

// The wait for the first token is TTFT's, not a gap: after a 500 ms
// prefill, the worst gap is the largest of the 3 gaps between 4 chunks.
func TestMaxITLIgnoresTheWaitForTheFirstToken(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.Model = testTarget("").Model
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{Mean: 500 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}, 0
	mock := mockvllm.New(o)
	srv := httptest.NewServer(mock)
	t.Cleanup(func() { mock.Close(); srv.Close() })
	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = 4, true
	m.SLO.MaxITL = model.Duration(400 * time.Millisecond)
	r := runProbe(t, srv.URL, m, time.Minute)
	if !r.Success() || r.TTFT < 500*time.Millisecond || len(r.ITL) != 3 {
		t.Fatalf("probe %s %v, TTFT %v, %d gaps", r.Reason, r.Err, r.TTFT, len(r.ITL))
	}
	if r.MaxITL != slices.Max(r.ITL) {
		t.Errorf("max ITL %v, gaps %v", r.MaxITL, r.ITL)
	}
}
