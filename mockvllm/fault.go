package mockvllm

import (
	"fmt"
	"net/http"
	"slices"
)

// FaultHeader selects a fault for one request, overriding Options.Faults.
const FaultHeader = "X-Mock-Fault"

// Fault is an injected failure. Mid-stream faults act after
// Options.FaultAfterChunks content chunks, or at the end of the output if
// it is shorter.
type Fault string

const (
	// FaultNone is a normal request.
	FaultNone Fault = ""
	// FaultRateLimit answers 429 with Retry-After: 1 and a JSON error,
	// before any stream. The engine never sees the request.
	FaultRateLimit Fault = "rate_limit"
	// FaultError500 answers 500 with a JSON error before any stream.
	FaultError500 Fault = "error_500"
	// FaultError503 answers 503 with a JSON error before any stream.
	FaultError503 Fault = "error_503"
	// FaultStreamError sends HTTP 200 and some content chunks, then
	// data: {"error":{...,"code":500}} and data: [DONE], as vLLM does for
	// a failure inside generation. Counted as finished_reason="error".
	FaultStreamError Fault = "stream_error"
	// FaultDisconnect sends some content chunks, then closes the
	// connection without [DONE]. Counted as finished_reason="abort".
	FaultDisconnect Fault = "disconnect"
	// FaultStall sends 200 headers and then nothing, until the client goes
	// away, the server closes or Options.StallTimeout passes. It holds no
	// engine slot (a hung front end).
	FaultStall Fault = "stall"
	// FaultStallMid sends some content chunks and then stalls like
	// FaultStall while keeping its engine slot and KV blocks (a hung
	// request); it ends as finished_reason="abort".
	FaultStallMid Fault = "stall_mid"
	// FaultMalformed inserts one event with invalid JSON after some
	// content chunks; the stream otherwise completes normally.
	FaultMalformed Fault = "malformed"
	// FaultNotSSE answers a request with 200, Content-Type
	// application/json and a JSON error body.
	FaultNotSSE Fault = "not_sse"
	// FaultEmpty streams the role chunk, a "stop" finish and [DONE] with
	// no content (completion_tokens 0), after the usual prefill time.
	FaultEmpty Fault = "empty"
)

// Faults lists every fault, in the order used to draw from FaultRates.
func Faults() []Fault {
	return []Fault{FaultRateLimit, FaultError500, FaultError503, FaultStreamError,
		FaultDisconnect, FaultStall, FaultStallMid, FaultMalformed, FaultNotSSE, FaultEmpty}
}

// ParseFault checks a fault name; "" and "none" mean no fault.
func ParseFault(s string) (Fault, error) {
	if s == "" || s == "none" {
		return FaultNone, nil
	}
	if f := Fault(s); slices.Contains(Faults(), f) {
		return f, nil
	}
	return FaultNone, fmt.Errorf("unknown fault %q", s)
}

// FaultRates maps faults to per-request probabilities; their sum should be
// at most 1.
type FaultRates map[Fault]float64

// draw picks a fault for u uniform in [0,1).
func (fr FaultRates) draw(u float64) Fault {
	acc := 0.0
	for _, f := range Faults() {
		acc += fr[f]
		if u < acc {
			return f
		}
	}
	return FaultNone
}

// pickFault uses the request header if present, else the configured rates.
func (s *Server) pickFault(r *http.Request) (Fault, error) {
	if h := r.Header.Get(FaultHeader); h != "" {
		return ParseFault(h)
	}
	if len(s.o.Faults) == 0 {
		return FaultNone, nil
	}
	return s.o.Faults.draw(s.rng.float64()), nil
}
