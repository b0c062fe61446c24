package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"
	commoncfg "github.com/prometheus/common/config"
)

// teeWriter keeps what the server streamed back.
type teeWriter struct {
	http.ResponseWriter
	buf *bytes.Buffer
}

func (t teeWriter) Write(p []byte) (int, error) { t.buf.Write(p); return t.ResponseWriter.Write(p) }

func (t teeWriter) Flush() { t.ResponseWriter.(http.Flusher).Flush() }

// streamedText is the content of an SSE chat stream.
func streamedText(sse []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(sse))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &ch) == nil && len(ch.Choices) > 0 {
			b.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	return b.String()
}

type exchange struct {
	msgs   []config.Message
	answer *bytes.Buffer
}

// runSessions runs 7 sessions of 3 synthetic turns (one warm-up) against
// a mock whose prefill costs 3 ms a token not in its prefix cache (none
// without cached), and returns the report and every chat exchange.
func runSessions(t *testing.T, cached bool) (*summary.Report, *loadtest.Run, []exchange) {
	mo := mocktarget.FixedMock()
	mo.BlockSize, mo.PrefillPerToken = 16, 3*time.Millisecond
	if cached {
		mo.PrefixCacheBlocks = 10000
	}
	s := mockvllm.New(mo)
	var mu sync.Mutex
	var log []exchange
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			s.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []config.Message `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(bytes.NewReader(body))
		buf := &bytes.Buffer{}
		mu.Lock()
		log = append(log, exchange{req.Messages, buf})
		mu.Unlock()
		s.ServeHTTP(teeWriter{w, buf}, r)
	}))
	hc := commoncfg.DefaultHTTPClientConfig
	hc.FollowRedirects = false
	tg := &config.Target{Name: "mock", URL: ts.URL, Model: s.Options().Model, HTTPClientConfig: hc}
	client, err := prober.NewClient(tg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close(); client.CloseIdleConnections(); ts.Close() }()
	conv := &workload.Conversations{Think: 20 * time.Millisecond, Syn: workload.NewSynthetic(64, 8, 0, 0, 5, nil), Turns: 3}
	o := runkit.BaseOptions(tg, client, 0, 0)
	o.Workload, o.Rate, o.NumPrompts, o.WarmupRequests, o.MaxConcurrency = conv, 40, 6, 1, 4
	run, err := loadtest.Execute(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return summary.Summarize(run, summary.SLO{}, nil), run, log
}

// Multi-turn sessions against the mock's prefix cache: every turn after
// the first resends the history with the server's actual answers, hits
// the cache, and gets its first token sooner than the same turn on a
// server without one; the report says so by turn.
func TestSessionsAgainstMock(t *testing.T) {
	rep, run, log := runSessions(t, true)
	if len(run.Records) != 21 {
		t.Fatalf("%d requests, want 7 sessions × 3 turns", len(run.Records))
	}
	if len(rep.Turns) != 3 || rep.Warmup != 3 {
		t.Fatalf("%d turn rows, %d warm-up requests", len(rep.Turns), rep.Warmup)
	}
	for _, tr := range rep.Turns {
		if tr.Requests != 6 || tr.Completed != 6 {
			t.Errorf("turn %d: %d requests, %d completed; want 6", tr.Turn, tr.Requests, tr.Completed)
		}
	}
	t1, t2, t3 := rep.Turns[0], rep.Turns[1], rep.Turns[2]
	if t1.CachedPercent != 0 || t2.CachedPercent < 40 || t3.CachedPercent < 60 {
		t.Errorf("cached prompt %%: turn 1 %.1f (want 0), 2 %.1f, 3 %.1f", t1.CachedPercent, t2.CachedPercent, t3.CachedPercent)
	}
	cold, _, _ := runSessions(t, false)
	for k := 1; k < 3; k++ {
		if warm, c := rep.Turns[k].TTFT.Median, cold.Turns[k].TTFT.Median; !(warm < c) {
			t.Errorf("turn %d TTFT p50 %.1f ms with the prefix cache, %.1f ms without: the history's reuse does not show", k+1, warm, c)
		}
	}
	// Each later turn carries the history: its user messages and the
	// answers the server actually streamed.
	answers := map[string]string{} // history → the answer to it
	key := func(msgs []config.Message) string { b, _ := json.Marshal(msgs); return string(b) }
	for _, e := range log {
		answers[key(e.msgs)] = streamedText(e.answer.Bytes())
	}
	resent := 0
	for _, e := range log {
		n := len(e.msgs)
		if n%2 != 1 || e.msgs[n-1].Role != "user" {
			t.Fatalf("request messages %+v: not user/assistant pairs then a user turn", e.msgs)
		}
		for k := 1; k < n; k += 2 {
			resent++
			want, ok := answers[key(e.msgs[:k])]
			if e.msgs[k].Role != "assistant" || !ok || want == "" || e.msgs[k].Content != want {
				t.Fatalf("message %d of a turn is %q, want the server's answer %q", k, e.msgs[k].Content, want)
			}
		}
	}
	if resent != 7*(1+2) {
		t.Errorf("%d answers resent, want 21 (7 sessions: 1 in turn 2, 2 in turn 3)", resent)
	}
	var text bytes.Buffer
	WriteText(rep, &text)
	if !strings.Contains(text.String(), "TTFT by turn (prefix-cache reuse)") {
		t.Errorf("no per-turn table:\n%s", text.String())
	}
}
