package testutil

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// CaptureStream returns the exact bytes a mock vLLM server sends for one
// streamed request, so that benchmarks decode real vLLM-shaped bytes from
// memory, with no network or timers. The mock has no delays and no
// queueing; send makes the request to its base URL, for its model name.
func CaptureStream(tb testing.TB, send func(url, model string) (*http.Response, error)) []byte {
	tb.Helper()
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL, o.BatchSlowdown = mockvllm.Dist{}, mockvllm.Dist{}, 0
	o.MaxRunning, o.KVBlocks = 0, 0
	mock := mockvllm.New(o)
	defer mock.Close()
	srv := httptest.NewServer(mock)
	defer srv.Close()
	resp, err := send(srv.URL, o.Model)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
