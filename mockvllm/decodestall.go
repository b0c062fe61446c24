package mockvllm

import "time"

// DecodeStall pauses the decoding of some requests, as a preemption, a
// long prefill batched in or a swap does on a real server: the user sees
// the text freeze mid-answer while the request's mean TPOT barely moves.
// It is what max_itl SLOs are tested against.
type DecodeStall struct {
	// Every makes every Every-th generation request that reaches the
	// engine (counted from server start, streaming or not; requests
	// rejected before the engine are not counted) stall; <= 0 disables
	// stalls.
	Every int
	// For is the stall: the gap between the content chunk that carries
	// output token AfterTokens and the next one is at least For (the
	// usual decode step on top).
	For time.Duration
	// AfterTokens is the output token (1-based) after which the stall
	// happens; 0 means 1. A request whose output ends at or before it
	// does not stall. With several tokens per chunk the stall follows the
	// chunk that carries this token.
	AfterTokens int
}

// on reports whether stalls are configured.
func (d DecodeStall) on() bool { return d.Every > 0 && d.For > 0 }

// pickStall counts a generation request and returns the stall it gets
// (zero for none).
func (s *Server) pickStall() (time.Duration, int) {
	d := s.o.DecodeStall
	if !d.on() {
		return 0, 0
	}
	if n := s.stalls.Add(1); n%int64(d.Every) != 0 {
		return 0, 0
	}
	return d.For, max(d.AfterTokens, 1)
}

// stallDue returns when the next decode step of r is due: due, or, right
// after the step that reached r's stall token, at least the stall from
// now, so the gap on the wire is never shorter than the stall however late
// the step ran.
func (r *request) stallDue(due time.Time, total int) time.Time {
	if r.stall <= 0 || r.stalled || total < r.stallAfter {
		return due
	}
	r.stalled = true
	if end := time.Now().Add(r.stall); due.Before(end) {
		return end
	}
	return due
}
