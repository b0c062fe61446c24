package stream

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// captureStream records the exact bytes the mock sends for a chat stream
// of n tokens with continuous usage, the request body the prober sends
// (prober/request.go), so tests decode real vLLM-shaped bytes.
func captureStream(tb testing.TB, n int) []byte {
	tb.Helper()
	return testutil.CaptureStream(tb, func(url, model string) (*http.Response, error) {
		body := fmt.Sprintf(`{"model":%q,"stream":true,"messages":[{"role":"user","content":"hi"}],`+
			`"max_tokens":%d,"ignore_eos":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`, model, n)
		return http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	})
}
