package prompt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

func tokenizer(url string, d []Dialect) *Tokenizer {
	return &Tokenizer{Client: http.DefaultClient, BaseURL: url, Redacted: url, Model: "m", Dialects: d, Timeout: 5 * time.Second}
}

// An empty token list for non-empty text is no answer: auto tries
// llama.cpp's body next and keeps it.
func TestLlamaCPPEmptyTokensIsNoAnswer(t *testing.T) {
	l := testutil.NewLlamaCPP(t, mockvllm.DefaultOptions(), 512, false) // one token a word
	tk := tokenizer(l.URL, Dialects(backend.Auto))
	for range 3 {
		n, err := tk.Count(t.Context(), Input{Text: "one two three"})
		if err != nil || n != 3 {
			t.Fatalf("Count = %d, %v; want 3", n, err)
		}
	}
	if tk.Dialect() != backend.TokenizeLlamaCPP || l.OtherBodies.Load() != 1 || l.ContentBodies.Load() != 3 {
		t.Errorf("dialect %q, %d vLLM bodies (want 1), %d content bodies (want 3)", tk.Dialect(), l.OtherBodies.Load(), l.ContentBodies.Load())
	}
	// Chat messages go as their contents.
	if n, err := tk.Count(t.Context(), Input{Messages: []config.Message{{Role: "system", Content: "a b"}, {Role: "user", Content: "c"}}}); err != nil || n != 3 {
		t.Errorf("messages: %d, %v; want 3", n, err)
	}
	// Told it is vLLM, the same server has no usable tokenizer.
	if n, err := tokenizer(l.URL, Dialects(backend.VLLM)).Count(t.Context(), Input{Text: "one"}); !errors.Is(err, ErrNoTokenizer) {
		t.Errorf("vLLM body to llama.cpp: %d, %v; want ErrNoTokenizer", n, err)
	}
	if n, src := tk.ContextSize(t.Context()); n != 512 || !strings.Contains(src, "n_ctx") {
		t.Errorf("context %d from %q, want 512 from /props n_ctx", n, src)
	}
}

// TGI's /tokenize answers a list of tokens; vLLM's carries max_model_len.
func TestTGIAndVLLMAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		switch {
		case r.URL.Path == "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"other","max_model_len":9},{"id":"m","max_model_len":4096}]}`)
		case body["inputs"] != nil:
			fmt.Fprint(w, `[{"id":1,"text":"a","start":0,"stop":1},{"id":2,"text":" b","start":1,"stop":3}]`)
		case body["prompt"] == "vllm":
			fmt.Fprint(w, `{"count":3,"max_model_len":2048,"tokens":[1,2,3]}`)
		default:
			http.Error(w, `{"error":"Input validation error: missing field inputs"}`, http.StatusUnprocessableEntity)
		}
	}))
	defer srv.Close()
	tk := tokenizer(srv.URL, Dialects(backend.Auto))
	if n, err := tk.Count(t.Context(), Input{Text: "a b"}); err != nil || n != 2 || tk.Dialect() != backend.TokenizeTGI {
		t.Errorf("TGI: %d, %v, dialect %q", n, err, tk.Dialect())
	}
	tk = tokenizer(srv.URL, Dialects(backend.VLLM))
	if n, err := tk.Count(t.Context(), Input{Text: "vllm"}); err != nil || n != 3 || tk.MaxModelLen() != 2048 {
		t.Errorf("vLLM: %d, %v, max_model_len %d", n, err, tk.MaxModelLen())
	}
	if n, src := tk.ContextSize(t.Context()); n != 4096 || !strings.Contains(src, "max_model_len of m") {
		t.Errorf("context %d from %q, want the model's 4096 from /v1/models", n, src)
	}
}

// A /tokenize that never answers costs the call's timeout, reported as a
// deadline with the time waited; the caller's own deadline wins when
// shorter.
func TestTokenizeHangingIsBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client leave
		<-r.Context().Done()
	}))
	defer srv.Close()
	tk := tokenizer(srv.URL, Dialects(backend.Auto))
	tk.Timeout = 200 * time.Millisecond
	start := time.Now()
	_, err := tk.Count(t.Context(), Input{Text: "hello world"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer in") || time.Since(start) < tk.Timeout {
		t.Errorf("hanging /tokenize: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	tk.Timeout = time.Hour
	if _, err := tk.Count(ctx, Input{Text: "hello world"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("under the caller's deadline: %v", err)
	}
	if n, _ := tk.ContextSize(ctx); n != 0 {
		t.Errorf("context size %d from a hanging server", n)
	}
}

// A deadline before any connection is a server out of reach, said so.
func TestTokenizeUnreachableIsNotConnected(t *testing.T) {
	blackhole := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}}
	tk := tokenizer("http://127.0.0.1:9", Dialects(backend.Auto))
	tk.Client, tk.Timeout = blackhole, 100*time.Millisecond
	if _, err := tk.Count(t.Context(), Input{Text: "hello"}); !errors.Is(err, ErrNotConnected) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("blackholed server: %v", err)
	}
}

// A huge answer is cut at a cap proportional to the request: reading
// stops there, and the server cannot push more than the socket buffers.
func TestTokenizeHugeAnswerIsCapped(t *testing.T) {
	var written atomic.Int64
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		chunk := []byte(strings.Repeat("1,", 32<<10))
		if _, err := w.Write([]byte(`{"tokens":[`)); err != nil {
			return
		}
		for written.Load() < 200<<20 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	tk := tokenizer(srv.URL, []Dialect{backend.TokenizeVLLM})
	_, err := tk.Count(t.Context(), Input{Text: "hello world"})
	if !errors.Is(err, ErrNoTokenizer) || !strings.Contains(err.Error(), "answer over") {
		t.Errorf("200 MB answer: %v", err)
	}
	<-done
	t.Logf("the server wrote %d KiB of a 200 MB answer", written.Load()>>10)
	if w := written.Load(); w > 16<<20 {
		t.Errorf("the server wrote %d MB before the prober stopped reading; want a few at most", w>>20)
	}
}

// Calibration prompts follow the run's prompt length: the long one is
// the short one twice, and at most half the tokens asked for in words.
func TestCalibrationWordsFollowInputTokens(t *testing.T) {
	for _, tokens := range []int{100, 600, 4000} {
		short, long := CalibrationWords(tokens)
		ns, nl := len(strings.Fields(short)), len(strings.Fields(long))
		if long != short+" "+short || nl > max(tokens/2, 8) || ns < 4 {
			t.Errorf("%d tokens: %d and %d words", tokens, ns, nl)
		}
	}
	if c, ok := FromUsage(25, 30, 50, 55); !ok || c.TokensPerWord != 1 || c.Overhead != 5 {
		t.Errorf("FromUsage = %+v, %v", c, ok)
	}
	if _, ok := FromUsage(25, 0, 50, 0); ok {
		t.Error("no usage made a calibration")
	}
}
