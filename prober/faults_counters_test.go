package prober

import (
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
)

// Issue 22: hostile usage drove llm_prober_prompt_tokens_total to −15
// and cached_prompt_tokens_total to −231; an int64-max value stayed for
// the life of the process. A count outside [0, MaxUsageTokens] fails the
// probe as invalid_usage and adds nothing to a token counter.
func TestFaultInvalidUsage(t *testing.T) {
	c := faultClient(t, commoncfg.HTTPClientConfig{})
	for _, tc := range []struct {
		usage string
		want  Reason
	}{
		{`{"prompt_tokens":-15,"completion_tokens":3}`, ReasonInvalidUsage},
		{`{"prompt_tokens":5,"completion_tokens":-3}`, ReasonInvalidUsage},
		{`{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":-231}}`, ReasonInvalidUsage},
		{fmt.Sprintf(`{"prompt_tokens":5,"completion_tokens":%d}`, math.MaxInt64), ReasonInvalidUsage},
		{fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":3}`, MaxUsageTokens+1), ReasonInvalidUsage},
		{fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":3,"prompt_tokens_detail":{"cached_tokens":%[1]d}}`, MaxUsageTokens), ReasonNone},
	} {
		t.Run(tc.usage, func(t *testing.T) {
			events := append(goodStream()[:4],
				`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":`+tc.usage+"}\n\n", "data: [DONE]\n\n")
			url := handlerServer(t, sseHandler(events))
			r := probeFault(t, c, url, chatModule(), 5*time.Second, tc.want)
			m := NewMetrics(prometheus.NewRegistry())
			m.Init(r.Target, r.Model, r.Module, time.Minute, nil)
			m.Record(r, time.Now())
			prompt := counterSum(t, m, "llm_prober_prompt_tokens_total")
			out := counterSum(t, m, "llm_prober_output_tokens_total")
			cached := counterSum(t, m, "llm_prober_cached_prompt_tokens_total")
			if tc.want == ReasonNone {
				if prompt != MaxUsageTokens || out != 3 || cached != MaxUsageTokens {
					t.Errorf("at the maximum: tokens prompt %v output %v cached %v", prompt, out, cached)
				}
				return
			}
			if prompt != 0 || out != 0 || cached != 0 {
				t.Errorf("invalid usage counted: prompt %v output %v cached %v", prompt, out, cached)
			}
			errContains(t, r, "outside [0, 16777216]")
		})
	}
}

// Replies that are not HTTP, or break it, get protocol_error (they were
// "other"); headers past the transport's cap are limit_exceeded.
func TestFaultProtocolViolations(t *testing.T) {
	c := faultClient(t, commoncfg.HTTPClientConfig{})
	for name, reply := range map[string]string{
		"ssh banner":           "SSH-2.0-OpenSSH_9.6\r\n",
		"binary":               "\x00\x01\x02\x03garbage\r\n\r\n",
		"header without colon": "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nBroken header line\r\n\r\n",
		"bad status code":      "HTTP/1.1 2x0 OK\r\n\r\n",
		"bad content-length":   "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			addr := rawServer(t, func(conn net.Conn) {
				if readRequest(conn) {
					_, _ = io.WriteString(conn, reply)
				}
			})
			probeFault(t, c, "http://"+addr, chatModule(), 5*time.Second, ReasonProtocolError)
		})
	}
}

// counterSum is the sum of a counter family's series in m.
func counterSum(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	mfs, err := m.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, mt := range mf.Metric {
				sum += mt.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// Issue 22: response headers up to 10 MB were read (net/http's default);
// bench at concurrency 8 grew to 374 MB. Headers past
// MaxResponseHeaderBytes fail the probe as limit_exceeded; large but
// legal ones, and long streams after them, still pass.
func TestFaultHugeResponseHeaders(t *testing.T) {
	if dialRx == nil {
		t.Skip("the header cap rides on the kernel-timestamped connection (Linux)")
	}
	c := faultClient(t, commoncfg.HTTPClientConfig{})
	stream := strings.Join(goodStream(), "")
	serve := func(header int) string {
		return rawServer(t, func(conn net.Conn) {
			if !readRequest(conn) {
				return
			}
			_, _ = fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Pad: %s\r\nContent-Length: %d\r\n\r\n%s",
				strings.Repeat("a", header), len(stream), stream)
		})
	}
	r := probeFault(t, c, "http://"+serve(10<<20), chatModule(), 10*time.Second, ReasonLimitExceeded)
	errContains(t, r, "response headers longer than 65536 bytes")
	probeFault(t, c, "http://"+serve(48<<10), chatModule(), 10*time.Second, ReasonNone)
}
