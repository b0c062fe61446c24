package tracectx

import (
	crand "crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// TraceContext is the W3C trace context a probe sends in its traceparent
// header. A server started with --otlp-traces-endpoint (vLLM) records the
// request in this trace, as a child of SpanID: the probe's own span when
// llm-prober exports it (tracing.otlp_endpoint).
type TraceContext struct {
	TraceID string // 32 lowercase hex digits
	SpanID  string // 16 lowercase hex digits
}

// New returns the trace context of the probe probeID. A
// random 16-hex-digit probe id (prober.NewProbeID) becomes the trace id
// left-padded with zeros, a 64-bit trace id as W3C Trace Context allows
// for systems with 8-byte ids: the exemplars' trace_id then repeats their
// probe_id, which a compressed /metrics carries almost for free (random
// 128-bit ids grew a gzipped 10,000-target scrape by 20-55 %). Other ids
// get a random 128-bit trace id. The span id is always random.
func New(probeID string) TraceContext {
	var b [24]byte
	_, _ = crand.Read(b[:])
	tc := TraceContext{TraceID: hex.EncodeToString(b[:16]), SpanID: hex.EncodeToString(b[16:])}
	if isTraceHex(probeID) {
		tc.TraceID = "0000000000000000" + probeID
	}
	return tc
}

// isTraceHex: 16 lowercase hex digits, not all zero (an invalid trace id).
func isTraceHex(id string) bool {
	if len(id) != 16 || id == "0000000000000000" {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Traceparent is the header value: version 00, sampled, so that a
// parent-based sampler on the server records the request.
func (tc TraceContext) Traceparent() string {
	return "00-" + tc.TraceID + "-" + tc.SpanID + "-01"
}

// SetHeader sets the traceparent header, if tc has a trace.
func SetHeader(h http.Header, tc TraceContext) {
	if tc.TraceID != "" {
		h.Set("traceparent", tc.Traceparent())
	}
}

// Phases are when the connection steps of a probe ended (zero when the
// step did not happen, e.g. a reused connection), for its span's events.
type Phases struct {
	DNSDone, ConnectDone, TLSDone time.Time
}

// Recorder collects the connection steps' times of one probe. The
// transport may finish a dial after the request that started it has
// ended (it dials in the background and keeps the connection for another
// request): such late hooks must neither race the probe's reading of its
// phases nor count for it, so they are dropped once the probe closes it.
type Recorder struct {
	mu     sync.Mutex
	p      Phases
	closed bool
}

func (pr *Recorder) set(f func(*Phases)) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if !pr.closed {
		f(&pr.p)
	}
}

// Close returns the phases and drops every later hook.
func (pr *Recorder) Close() Phases {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.closed = true
	return pr.p
}

// Hooks adds the connection steps' times to ct.
func (pr *Recorder) Hooks(ct *httptrace.ClientTrace) {
	ct.DNSDone = func(httptrace.DNSDoneInfo) {
		now := time.Now()
		pr.set(func(p *Phases) { p.DNSDone = now })
	}
	ct.ConnectDone = func(_, _ string, err error) {
		if err == nil {
			now := time.Now()
			pr.set(func(p *Phases) { p.ConnectDone = now })
		}
	}
	ct.TLSHandshakeDone = func(_ tls.ConnectionState, err error) {
		if err == nil {
			now := time.Now()
			pr.set(func(p *Phases) { p.TLSDone = now })
		}
	}
}
