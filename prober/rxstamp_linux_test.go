package prober

import (
	"context"
	"crypto/tls"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// A probe whose reader is held up after the first token (a GC pause, a
// busy CPU) still measures the gaps at which the server sent the tokens,
// as long as the next token is read before a third one queues behind it
// (chunks read together share the arrival time of the last of them).
func TestLateReaderMeasuresTrueGaps(t *testing.T) {
	testutil.SkipIfOverloaded(t)
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 10 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: 50 * time.Millisecond}
	o.MaxRunning, o.KVBlocks = 0, 0
	mock := mockvllm.New(o)
	defer mock.Close()
	srv := httptest.NewServer(mock)
	defer srv.Close()
	target := testTarget(srv.URL)
	target.Model = o.Model
	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = 4, true
	client, err := NewClient(target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	stall := func(msg string, _ ...any) {
		if msg == "first token" {
			time.Sleep(75 * time.Millisecond) // the second token waits 25ms to be read
		}
	}
	r := RunWithOptions(context.Background(), client, target, m, "late", "test", RunOptions{Trace: stall})
	if !r.Success() || len(r.ITL) != 3 {
		t.Fatalf("probe: %s %v, ITLs %v", r.Reason, r.Err, r.ITL)
	}
	tr, _ := mock.Emissions("late")
	var content []time.Time
	for _, ch := range tr.Chunks {
		if ch.Content {
			content = append(content, ch.At)
		}
	}
	for k, gap := range r.ITL {
		want := content[k+1].Sub(content[k])
		if d := (gap - want).Abs(); d > 10*time.Millisecond {
			t.Errorf("ITL[%d] = %v, sent %v apart (reader stalled 75ms after the first token)", k, gap, want)
		}
	}
}

// Over TLS the timestamped connection is found under the TLS wrapper
// (HTTP/1.1); over HTTP/2, whose connection carries other streams, it is
// not used, and the probe falls back to the reader's clock.
func TestRxConnOverTLS(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		pki := testutil.NewPKI(t, "127.0.0.1", "localhost")
		srv := httptest.NewUnstartedServer(eventsHandler("text/event-stream", []event{
			{raw: `data: {"choices":[{"delta":{"content":"a"}}]}` + "\n\n"},
			{delay: 20 * time.Millisecond, raw: `data: {"choices":[{"delta":{"content":"b"}}]}` + "\n\n"},
			{raw: finishEvent}, {raw: doneEvent},
		}))
		srv.EnableHTTP2 = h2
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Cert}}
		srv.StartTLS()
		target := testTarget(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1))
		target.HTTPClientConfig.TLSConfig.CAFile = pki.CAFile
		target.HTTPClientConfig.EnableHTTP2 = true
		client, err := NewClient(target, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		r := Run(context.Background(), client, target, chatModule(), "tls", "test")
		// The kernel's receive times hold the server's 20 ms apart; the
		// reader's clock (HTTP/2) may read both chunks late at load 20.
		if !r.Success() || len(r.ITL) != 1 || (!h2 && r.ITL[0] < 20*time.Millisecond) {
			t.Errorf("h2=%v: %s %v, ITL %v", h2, r.Reason, r.Err, r.ITL)
		}
		if got := r.conn != nil; got == h2 || r.KernelTimes != got {
			t.Errorf("h2=%v: timestamped connection used: %v, result says kernel times %v", h2, got, r.KernelTimes)
		}
		client.CloseIdleConnections()
		srv.Close()
	}
}
