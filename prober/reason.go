package prober

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"syscall"

	"github.com/llm-prober/llm-prober/httpclient"
)

// Reason classifies why a probe failed. The set is closed so that the
// reason label stays bounded; every value is documented in
// docs/definitions.md ("Failure reasons").
type Reason string

const (
	ReasonNone    Reason = ""
	ReasonDNS     Reason = "dns"     // name resolution failed
	ReasonConnect Reason = "connect" // TCP connect refused/unreachable
	ReasonTLS     Reason = "tls"     // handshake or certificate verification failed
	// The probe's timeout, by the phase it expired in: only the first two
	// say the target is unreachable. An overloaded server accepts the
	// request and sends headers at once, then queues it: that is
	// timeout_first_token, as is a prefill too slow for the timeout.
	ReasonTimeoutConnect    Reason = "timeout_connect"     // no connection (DNS, TCP, TLS) in time
	ReasonTimeoutHeaders    Reason = "timeout_headers"     // connected, no response headers in time
	ReasonTimeoutFirstToken Reason = "timeout_first_token" // headers, but no generated token in time
	ReasonTimeoutDecode     Reason = "timeout_decode"      // tokens came, but the stream did not end in time
	ReasonTimeoutTokenize   Reason = "timeout_tokenize"    // sizing a prompt_tokens prompt: /tokenize did not answer in time
	ReasonHTTP4xx           Reason = "http_4xx"            // 4xx other than 429 (bad model, auth, ...)
	ReasonRateLimited       Reason = "rate_limited"        // 429
	ReasonHTTP5xx           Reason = "http_5xx"            // 5xx before the stream started
	ReasonNotEventStream    Reason = "not_event_stream"    // 2xx whose Content-Type is not text/event-stream
	ReasonMalformedChunk    Reason = "malformed_chunk"     // an event that is not valid JSON, or a body that is not SSE
	ReasonStreamError       Reason = "stream_error"        // an error object inside the stream
	ReasonStreamBroken      Reason = "stream_broken"       // connection ended mid-stream without [DONE] or finish_reason
	ReasonEmptyOutput       Reason = "empty_output"        // stream completed without generated content
	ReasonValidation        Reason = "validation"          // output failed a configured validator
	ReasonRedirect          Reason = "redirect"            // a 3xx not followed; the location is in the error
	ReasonLimitExceeded     Reason = "limit_exceeded"      // the response passed a fixed cap (limits.go)
	ReasonInvalidUsage      Reason = "invalid_usage"       // usage token counts outside [0, MaxUsageTokens]
	ReasonProtocolError     Reason = "protocol_error"      // the reply broke HTTP: not HTTP at all, a malformed status line or header
	ReasonOther             Reason = "other"               // anything else (bad request build, unknown transport error)
)

// Reasons lists every failure reason, for pre-initialising counters.
var Reasons = []Reason{
	ReasonDNS, ReasonConnect, ReasonTLS, ReasonTimeoutConnect, ReasonTimeoutHeaders,
	ReasonTimeoutFirstToken, ReasonTimeoutDecode, ReasonTimeoutTokenize, ReasonHTTP4xx,
	ReasonRateLimited, ReasonHTTP5xx, ReasonNotEventStream, ReasonMalformedChunk,
	ReasonStreamError, ReasonStreamBroken, ReasonEmptyOutput, ReasonValidation, ReasonRedirect,
	ReasonLimitExceeded, ReasonInvalidUsage, ReasonProtocolError, ReasonOther,
}

// probeError is a failure with its classification.
type probeError struct {
	reason Reason
	err    error
}

func (e *probeError) Error() string { return e.err.Error() }
func (e *probeError) Unwrap() error { return e.err }

func fail(r Reason, err error) error { return &probeError{reason: r, err: err} }

// reasonTimeout is a timeout before its phase is known; timeoutPhase
// turns it into one of the exported timeout reasons.
const reasonTimeout Reason = "timeout"

// timeoutPhase names the phase a probe was in when its time ran out.
func (r *Result) timeoutPhase() Reason {
	switch {
	case r.HasTTFT:
		return ReasonTimeoutDecode
	case r.HTTPStatus != 0:
		return ReasonTimeoutFirstToken
	case r.connected:
		return ReasonTimeoutHeaders
	}
	return ReasonTimeoutConnect
}

// reasonOf returns the classification of err; transport errors that were
// not classified where they happened are classified here.
func reasonOf(ctx context.Context, err error) Reason {
	if err == nil {
		return ReasonNone
	}
	// The deadline wins over whatever error it caused (reset, EOF, ...).
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return reasonTimeout
	}
	var pe *probeError
	if errors.As(err, &pe) {
		return pe.reason
	}
	return classifyTransport(err)
}

// classifyTransport maps an error from dialing or the TLS handshake.
func classifyTransport(err error) Reason {
	var dnsErr *net.DNSError
	var certInvalid x509.CertificateInvalidError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var verifyErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return reasonTimeout
	case errors.Is(err, httpclient.ErrRedirectRefused): // follow_redirects: true, but not there
		return ReasonRedirect
	case errors.As(err, &dnsErr):
		return ReasonDNS
	case errors.As(err, &certInvalid), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &verifyErr), errors.As(err, &recordErr), errors.As(err, &alertErr),
		// net/http turns a plain-HTTP answer to a TLS hello into this.
		errors.Is(err, http.ErrSchemeMismatch):
		return ReasonTLS
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH):
		return ReasonConnect
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return ReasonConnect
	case errors.As(err, &opErr) && opErr.Op == "remote error":
		return ReasonTLS
	// Connected, then hung up on before the response headers (a crash, a
	// proxy giving up): the response broke before it started.
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ReasonStreamBroken
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return reasonTimeout
	}
	return protocolReason(err)
}

// protocolReason classifies what net/http found wrong in a reply it read
// (it has no error types for most): headers past the transport's cap,
// or a reply that is not valid HTTP (an SSH banner, a header line without
// a colon, a malformed status line or Content-Length).
func protocolReason(err error) Reason {
	var pe textproto.ProtocolError
	msg := err.Error()
	switch {
	case strings.Contains(msg, "server response headers exceeded"):
		return ReasonLimitExceeded
	case errors.As(err, &pe), strings.Contains(msg, "transport connection broken: "),
		strings.Contains(msg, "malformed HTTP"):
		return ReasonProtocolError
	}
	return ReasonOther
}

// TimeoutPhase says which phase a timeout reason expired in, for errors
// and pages; "" for other reasons.
func (r Reason) TimeoutPhase() string {
	return timeoutPhases[r]
}

var timeoutPhases = map[Reason]string{
	ReasonTimeoutConnect:    "before a connection was established (DNS, TCP, TLS)",
	ReasonTimeoutHeaders:    "after connecting, before the response headers",
	ReasonTimeoutFirstToken: "before the first token: queued on the server, or a slow prefill",
	ReasonTimeoutDecode:     "during decoding, after the first token",
	ReasonTimeoutTokenize:   "sizing the prompt with the server's /tokenize, before the request was sent",
}
