package promsource

import (
	"context"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzPromAnswer: any body as Prometheus's answer, through the real
// client (byte cap, deadline, decode, checks) on loopback, never panics,
// and what is read is finite, in range, and within the window.
func FuzzPromAnswer(f *testing.F) {
	for _, s := range []string{
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"target":"a"},"values":[[1795132500,"2.5"],[1795132800,"3"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"target":"a"},"values":[[1795132800,"1e308"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"target":"a"},"values":[[13569465600,"1"]]}]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"le":"1e12"},"value":[1795132800,"NaN"]}]}}`,
		`{"status":"error","errorType":"bad_data","error":"x"}`,
		`{"status":"success","data":{"resultType":"matrix","result":[[[[[[`,
	} {
		f.Add([]byte(s))
	}
	var body atomic.Value
	body.Store([]byte{})
	s := hostileSource(f, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body.Load().([]byte))
	}, 64<<10, 10*time.Second)
	f.Fuzz(func(t *testing.T, b []byte) {
		body.Store(b)
		ctx := context.Background()
		if r, err := s.ServedRates(ctx); err == nil {
			lo, hi := r.End.Add(-r.Window-answerSlack), r.End.Add(answerSlack)
			for _, p := range r.Points {
				if !(p.V >= 0 && p.V <= MaxAnswerValue*float64(len(r.Targets)+1)) || p.T.Before(lo) || p.T.After(hi) {
					t.Fatalf("point %+v read", p)
				}
			}
			if r.History() < 0 || r.History() > r.Window {
				t.Fatalf("history %v", r.History())
			}
		}
		if h, err := s.Lengths(ctx, PromptTokens); err == nil {
			if m := h.Mean(); math.IsInf(m, 0) || h.Count <= 0 || h.Count > MaxAnswerValue {
				t.Fatalf("histogram %+v read", h)
			}
		}
	})
}
