package prober

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/mockvllm"
)

func TestFaultStreamFromMock(t *testing.T) {
	for _, c := range []struct {
		fault mockvllm.Fault
		want  Reason
	}{
		{mockvllm.FaultMalformed, ReasonMalformedChunk},
		{mockvllm.FaultStreamError, ReasonStreamError},
		{mockvllm.FaultDisconnect, ReasonStreamBroken},
		{mockvllm.FaultEmpty, ReasonEmptyOutput},
	} {
		t.Run(string(c.fault), func(t *testing.T) {
			leakCheck(t)
			cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
			probeFault(t, cl, mockWithFault(t, c.fault), chatModule(), 5*time.Second, c.want)
			stillResponsive(t, cl)
		})
	}
}

// A TCP reset after some chunks: the prober must not wait for more.
func TestFaultConnectionResetMidStream(t *testing.T) {
	leakCheck(t)
	addr := rawServer(t, func(c net.Conn) {
		if !readRequest(c) {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
		for _, e := range goodStream()[:3] {
			io.WriteString(c, e)
		}
		time.Sleep(50 * time.Millisecond) // let the client read them
		c.(*net.TCPConn).SetLinger(0)     // close with RST
	})
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, cl, "http://"+addr, chatModule(), 5*time.Second, ReasonStreamBroken)
	if !r.HasTTFT {
		t.Error("chunks before the reset were not seen")
	}
	stillResponsive(t, cl)
}

// Keep-alive comments forever: the stream is alive but never finishes.
func TestFaultNeverEndingKeepAlive(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, foreverHandler(": keep-alive\n\n", 5*time.Millisecond))
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, cl, url, chatModule(), time.Second, ReasonTimeoutFirstToken)
	if r.HasTTFT {
		t.Error("a comment counted as a token")
	}
	stillResponsive(t, cl)
}

// One line that never ends must be cut at MaxLineBytes.
func TestFaultEnormousLine(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, eventStream(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `data: {"choices":[{"delta":{"content":"`)
		chunk := strings.Repeat("a", 64<<10)
		for i := 0; i < 4*MaxLineBytes/len(chunk); i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	peak := peakHeapDuring(t, func() {
		r := probeFault(t, cl, url, chatModule(), 10*time.Second, ReasonLimitExceeded)
		errContains(t, r, "longer than")
	})
	if peak > 16*MaxLineBytes {
		t.Errorf("heap grew by %d bytes for a line cut at %d", peak, MaxLineBytes)
	}
	stillResponsive(t, cl)
}

// A stream compressed although the prober did not ask for it is decoded
// and measured like any other.
func TestFaultGzipStreamSucceeds(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, eventStream(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for _, e := range goodStream() {
			io.WriteString(zw, e)
			zw.Flush()
			w.(http.Flusher).Flush()
		}
		zw.Close()
	}))
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, cl, url, chatModule(), 5*time.Second, ReasonNone)
	if r.Output != "one two three" || r.OutputTokens != 3 || r.ContentChunks != 3 {
		t.Errorf("output %q, %d tokens, %d chunks; want the decoded stream", r.Output, r.OutputTokens, r.ContentChunks)
	}
}

func TestFaultGzipCorruptHeader(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, eventStream(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, strings.Join(goodStream(), ""))
	}))
	cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	probeFault(t, cl, url, chatModule(), 5*time.Second, ReasonMalformedChunk)
}

// Bytes trickling in one at a time: within the timeout the probe succeeds
// and its readings cannot precede the bytes that made them.
func TestFaultSlowDrip(t *testing.T) {
	const perByte = 2 * time.Millisecond
	events := []string{contentEvent("a"), contentEvent("b"),
		`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n\n", "data: [DONE]\n\n"}
	firstEnd := len(events[0])
	total := len(strings.Join(events, ""))
	url := handlerServer(t, dripHandler(strings.Join(events, ""), perByte))

	t.Run("within timeout", func(t *testing.T) {
		leakCheck(t)
		cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
		r := probeFault(t, cl, url, chatModule(), 30*time.Second, ReasonNone)
		if r.Output != "ab" || r.ContentChunks != 2 || r.OutputTokens != 2 {
			t.Errorf("output %q, %d chunks, %d tokens", r.Output, r.ContentChunks, r.OutputTokens)
		}
		// Sleeps last at least their duration: lower bounds are exact.
		if least := time.Duration(firstEnd-1) * perByte; r.TTFT < least {
			t.Errorf("TTFT %s before the first event was complete (%s)", r.TTFT, least)
		}
		if least := time.Duration(total-1) * perByte; r.E2EL < least {
			t.Errorf("E2EL %s before the stream was complete (%s)", r.E2EL, least)
		}
		if len(r.ITL) != 1 || r.ITL[0] < time.Duration(len(events[1]))*perByte {
			t.Errorf("ITL %v, want one gap of at least %s", r.ITL, time.Duration(len(events[1]))*perByte)
		}
	})
	t.Run("past timeout", func(t *testing.T) {
		leakCheck(t)
		cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(total/2)*perByte)
		defer cancel()
		// Half the stream: usually past the first event, but a loaded
		// machine may drip slower; the phase must match what was seen.
		r := Run(ctx, cl, testTarget(url), chatModule(), "drip", "test")
		want := ReasonTimeoutFirstToken
		if r.HasTTFT {
			want = ReasonTimeoutDecode
		}
		if r.Reason != want {
			t.Errorf("reason %q (TTFT seen: %v), want %q", r.Reason, r.HasTTFT, want)
		}
		stillResponsive(t, cl)
	})
}
