package testutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// LlamaCPP is a fake llama-server on loopback: the mock's generation
// behind llama-server's other endpoints.
type LlamaCPP struct {
	URL string
	// Generations counts chat and completions requests; ContentBodies
	// and OtherBodies the /tokenize requests with and without "content".
	Generations, ContentBodies, OtherBodies atomic.Int64
}

// NewLlamaCPP serves o's mock as llama-server would: POST /tokenize takes
// {"content"} and answers {"tokens"} alone, and answers vLLM's body with
// 200 {"tokens":[]}; GET /props has the per-slot context nCtx (-c 2048
// -np 4 gives 512), which generation enforces too; /v1/models has no
// max_model_len. With hangTokenize, /tokenize never answers (for 20 s, so
// that a client without a deadline fails its test rather than hangs it).
func NewLlamaCPP(t testing.TB, o mockvllm.Options, nCtx int, hangTokenize bool) *LlamaCPP {
	t.Helper()
	o.MaxModelLen = nCtx
	mock := mockvllm.New(o)
	l := &LlamaCPP{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tokenize":
			body, _ := io.ReadAll(r.Body) // then the server sees a client leave
			if hangTokenize {
				select {
				case <-r.Context().Done():
				case <-time.After(20 * time.Second):
					http.NotFound(w, r)
				}
				return
			}
			var req map[string]any
			if json.Unmarshal(body, &req) != nil || req["content"] == nil {
				l.OtherBodies.Add(1)
				fmt.Fprint(w, `{"tokens":[]}`)
				return
			}
			l.ContentBodies.Add(1)
			rec := httptest.NewRecorder()
			mock.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/tokenize", bytes.NewReader(body)))
			var out struct {
				Tokens []int `json:"tokens"`
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &out)
			_ = json.NewEncoder(w).Encode(map[string]any{"tokens": out.Tokens})
		case "/props":
			fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":%d,"params":{"n_predict":-1}},"total_slots":4}`, nCtx)
		case "/v1/models":
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"llamacpp","meta":{"n_ctx_train":8192}}]}`, o.Model)
		default:
			if strings.HasPrefix(r.URL.Path, "/v1/chat/") || strings.HasPrefix(r.URL.Path, "/v1/completions") {
				l.Generations.Add(1)
			}
			mock.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(func() { mock.Close(); srv.Close() })
	l.URL = srv.URL
	return l
}
