package mockvllm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// fastOptions are defaults with short, fixed latencies for tests.
func fastOptions() Options {
	o := DefaultOptions()
	o.TTFT = Dist{Mean: 10 * time.Millisecond}
	o.ITL = Dist{Mean: 5 * time.Millisecond}
	o.PrefixCacheHitRate = 0
	return o
}

type harness struct {
	t      *testing.T
	s      *Server
	ts     *httptest.Server
	client *http.Client
}

// start serves New(o) on 127.0.0.1 with its own client transport.
func start(t *testing.T, o Options) *harness {
	t.Helper()
	s := New(o)
	ts := httptest.NewServer(s)
	tr := &http.Transport{}
	h := &harness{t: t, s: s, ts: ts, client: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		s.Close()
		tr.CloseIdleConnections()
		ts.Close()
	})
	return h
}

// post sends a JSON body; hdr are extra header pairs.
func (h *harness) post(ctx context.Context, path string, body any, hdr ...string) *http.Response {
	h.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.ts.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("POST %s: %v", path, err)
	}
	return resp
}

func (h *harness) get(path string) (*http.Response, []byte) {
	h.t.Helper()
	resp, err := h.client.Get(h.ts.URL + path)
	if err != nil {
		h.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// metrics scrapes and parses /metrics.
func (h *harness) metrics() map[string]*dto.MetricFamily {
	h.t.Helper()
	_, b := h.get("/metrics")
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		h.t.Fatalf("parse /metrics: %v\n%s", err, b)
	}
	return mf
}

// value returns the sum of a family's counter/gauge values whose labels
// include want.
func value(mf map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := mf[name]
	if f == nil {
		return -1
	}
	sum := 0.0
outer:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(want); i += 2 {
			if labelOf(m, want[i]) != want[i+1] {
				continue outer
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sse is a parsed stream: data payloads in order and whether the body
// ended cleanly.
type sse struct {
	events []string
	err    error
}

func readSSE(r io.Reader) sse {
	var out sse
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out.events = append(out.events, d)
		}
	}
	out.err = sc.Err()
	return out
}

// wireChunk is a streamed chunk as a client sees it.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta *struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *errorInfo `json:"error"`
}

func decodeChunk(t *testing.T, s string) wireChunk {
	t.Helper()
	var c wireChunk
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("chunk %q: %v", s, err)
	}
	return c
}

// text returns the generated text of a chunk (chat content or completion text).
func (c wireChunk) text() string {
	if len(c.Choices) == 0 {
		return ""
	}
	ch := c.Choices[0]
	if ch.Delta != nil && ch.Delta.Content != nil {
		return *ch.Delta.Content
	}
	if ch.Text != nil {
		return *ch.Text
	}
	return ""
}

func chatBody(maxTokens int, extra map[string]any) map[string]any {
	b := map[string]any{
		"model":      "mock-model",
		"messages":   []map[string]string{{"role": "user", "content": "say hello to the world"}},
		"max_tokens": maxTokens,
		"stream":     true,
		"ignore_eos": true,
	}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
