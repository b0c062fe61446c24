package prompt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// Dialect is one server family's POST /tokenize; package backend lists
// them and says which each backend speaks, this package speaks them.
type Dialect = backend.Dialect

// autoDialects are every dialect, in the order a backend of auto tries
// them: vLLM's body first (vLLM and SGLang, the most used), then
// llama.cpp's, whose server answers vLLM's body without an answer.
var autoDialects = []Dialect{backend.TokenizeVLLM, backend.TokenizeLlamaCPP, backend.TokenizeTGI}

// Dialects are the /tokenize dialects to try for a backend, in order;
// none where the server has no such endpoint (openai, trtllm).
func Dialects(b config.Backend) []Dialect {
	if b == "" || b == backend.Auto {
		return slices.Clone(autoDialects)
	}
	if k := backend.Get(string(b)); k != nil {
		return slices.Clone(k.Tokenize)
	}
	return nil
}

var (
	// ErrNoTokenizer: no dialect gave a usable answer (no endpoint, an
	// error status, an empty or oversized answer); size from usage.
	ErrNoTokenizer = errors.New("no usable /tokenize")
	// errNoAnswer: this dialect gave no usable answer; try the next.
	errNoAnswer = errors.New("no usable answer")
	// ErrNotConnected marks a deadline that passed before a connection
	// to the server was made: the server is unreachable, not a slow
	// tokenizer.
	ErrNotConnected = errors.New("no connection")
)

const (
	// answerBase + answerPerByte × the request body bounds an answer: a
	// token is at most one byte of text, and no dialect spends more than
	// ~64 bytes a token (TGI: id, text and offsets), so an honest answer
	// always fits and a hostile one costs at most this.
	answerBase, answerPerByte = 64 << 10, 64
	// DefaultTimeout bounds one /tokenize call where the caller's own
	// deadline is longer: counting a prompt takes milliseconds.
	DefaultTimeout = 30 * time.Second
)

// Input is what is counted: Messages (a chat request; vLLM applies the
// chat template, the other dialects count the contents joined by
// newlines) or Text (a completions prompt).
type Input struct {
	Text     string
	Messages []config.Message
}

func (in Input) text() string {
	if in.Messages == nil {
		return in.Text
	}
	parts := make([]string, len(in.Messages))
	for i, m := range in.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// Tokenizer counts tokens with a server's POST /tokenize. The first
// dialect that answers is kept for every later call.
type Tokenizer struct {
	Client *http.Client
	// BaseURL is the server's root; Redacted is how errors show it.
	BaseURL, Redacted string
	Model, UserAgent  string
	Dialects          []Dialect
	// Timeout bounds each call (DefaultTimeout if 0), within the
	// caller's context.
	Timeout time.Duration

	mu          sync.Mutex
	dialect     Dialect
	maxModelLen int
}

// Dialect is the dialect that answered; "" before one did.
func (t *Tokenizer) Dialect() Dialect {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialect
}

// MaxModelLen is the context size vLLM's answers carry; 0 if none did.
func (t *Tokenizer) MaxModelLen() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.maxModelLen
}

// Count returns how many tokens the server makes of in, special tokens
// (BOS) included as it counts a prompt. Errors: ErrNoTokenizer when no
// dialect answers usably; context.DeadlineExceeded (wrapped, with the
// time waited, and ErrNotConnected if no connection was made) when the
// call ran out of time; else the transport's.
func (t *Tokenizer) Count(ctx context.Context, in Input) (int, error) {
	t.mu.Lock()
	known := t.dialect
	t.mu.Unlock()
	dialects := t.Dialects
	if known != "" {
		dialects = []Dialect{known}
	}
	var reasons []string
	for _, d := range dialects {
		n, err := t.count(ctx, d, in)
		if err == nil {
			t.mu.Lock()
			t.dialect = d
			t.mu.Unlock()
			return n, nil
		}
		if !errors.Is(err, errNoAnswer) {
			return 0, err
		}
		reasons = append(reasons, fmt.Sprintf("%s body: %v", d, err))
	}
	return 0, fmt.Errorf("%w at %s/tokenize (%s)", ErrNoTokenizer, t.Redacted, strings.Join(reasons, "; "))
}

// body is d's request for in.
func (t *Tokenizer) body(d Dialect, in Input) ([]byte, error) {
	var body map[string]any
	switch d {
	case backend.TokenizeLlamaCPP:
		body = map[string]any{"content": in.text(), "add_special": true}
	case backend.TokenizeTGI:
		body = map[string]any{"inputs": in.text()}
	default:
		body = map[string]any{"model": t.Model, "prompt": in.Text}
		if in.Messages != nil {
			msgs := make([]map[string]string, len(in.Messages))
			for i, m := range in.Messages {
				msgs[i] = map[string]string{"role": m.Role, "content": m.Content}
			}
			body = map[string]any{"model": t.Model, "messages": msgs}
		}
	}
	return json.Marshal(body)
}

func (t *Tokenizer) count(ctx context.Context, d Dialect, in Input) (int, error) {
	b, err := t.body(d, in)
	if err != nil {
		return 0, err
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var connected atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }})
	raw, status, err := t.post(ctx, b, answerBase+answerPerByte*int64(len(b)))
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			waited := time.Since(start).Round(time.Millisecond)
			if !connected.Load() {
				return 0, fmt.Errorf("POST %s/tokenize: %w in %s: %w", t.Redacted, ErrNotConnected, waited, context.DeadlineExceeded)
			}
			return 0, fmt.Errorf("POST %s/tokenize: no answer in %s: %w", t.Redacted, waited, context.DeadlineExceeded)
		}
		return 0, err
	}
	if status != http.StatusOK {
		// 404/405 where there is none, 400/422 for another dialect's
		// body; a gateway may answer 401/403 for paths it does not route.
		return 0, fmt.Errorf("%w: HTTP %d", errNoAnswer, status)
	}
	n, mml, err := parseAnswer(raw)
	if err != nil {
		return 0, err
	}
	if n == 0 && strings.TrimSpace(in.text()) != "" {
		return 0, fmt.Errorf("%w: 0 tokens for %d bytes of text", errNoAnswer, len(in.text()))
	}
	if mml > 0 {
		t.mu.Lock()
		t.maxModelLen = mml
		t.mu.Unlock()
	}
	return n, nil
}

// post sends body to /tokenize and reads at most limit bytes of the
// answer: more is errNoAnswer, without reading the rest.
func (t *Tokenizer) post(ctx context.Context, body []byte, limit int64) ([]byte, int, error) {
	u := strings.TrimSuffix(t.BaseURL, "/") + "/tokenize"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if t.UserAgent != "" {
		req.Header.Set("User-Agent", t.UserAgent)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return nil, 0, t.redact(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, 0, t.redact(err)
	}
	if int64(len(raw)) > limit {
		return nil, resp.StatusCode, fmt.Errorf("%w: answer over %d bytes", errNoAnswer, limit)
	}
	return raw, resp.StatusCode, nil
}

// redact puts the redacted URL in a transport error (the real one may
// carry credentials).
func (t *Tokenizer) redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = t.Redacted + "/tokenize"
	}
	return err
}

// parseAnswer reads {"count","tokens","max_model_len"} (vLLM, SGLang,
// llama.cpp) or a list of tokens (TGI).
func parseAnswer(raw []byte) (n, maxModelLen int, err error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(t, &list); err != nil {
			return 0, 0, fmt.Errorf("%w: %v", errNoAnswer, err)
		}
		return len(list), 0, nil
	}
	var out struct {
		Count       *int              `json:"count"`
		Tokens      []json.RawMessage `json:"tokens"`
		MaxModelLen int               `json:"max_model_len"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, 0, fmt.Errorf("%w: %v", errNoAnswer, err)
	}
	switch {
	case out.Count != nil && *out.Count >= 0:
		return *out.Count, out.MaxModelLen, nil
	case out.Tokens != nil:
		return len(out.Tokens), out.MaxModelLen, nil
	}
	return 0, 0, fmt.Errorf("%w: no count and no tokens", errNoAnswer)
}
