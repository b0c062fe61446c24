package prober

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
)

// Cached tokens are part of the prompt: more of them than prompt tokens
// (a hit rate over 100 %) fail the probe as invalid_usage and reach no
// token counter (issue 32: they were counted).
func TestFaultCachedOverPrompt(t *testing.T) {
	c := faultClient(t, commoncfg.HTTPClientConfig{})
	for _, tc := range []struct {
		usage string
		want  Reason
	}{
		{`{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":6}}`, ReasonInvalidUsage},
		{`{"prompt_tokens":0,"completion_tokens":3,"prompt_tokens_detail":{"cached_tokens":1}}`, ReasonInvalidUsage},
		{`{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":5}}`, ReasonNone},
	} {
		t.Run(tc.usage, func(t *testing.T) {
			events := append(goodStream()[:4],
				`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":`+tc.usage+"}\n\n", "data: [DONE]\n\n")
			r := probeFault(t, c, handlerServer(t, sseHandler(events)), chatModule(), 5*time.Second, tc.want)
			m := NewMetrics(prometheus.NewRegistry())
			m.Init(r.Target, r.Model, r.Module, time.Minute, nil)
			m.Record(r, time.Now())
			cached := counterSum(t, m, "llm_prober_cached_prompt_tokens_total")
			if tc.want == ReasonNone {
				if cached != 5 {
					t.Errorf("cached %v, want 5", cached)
				}
				return
			}
			if cached != 0 {
				t.Errorf("cached tokens over the prompt counted: %v", cached)
			}
			errContains(t, r, "exceeds prompt_tokens")
		})
	}
}
