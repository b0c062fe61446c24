package tracing

import (
	"context"
	"encoding/hex"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/llm-prober/llm-prober/prober"
)

type idsKey struct{}

type spanIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// probeIDs hands the SDK the ids a probe already sent in its traceparent
// header (carried in the context), so the exported span is the parent the
// server's span names.
type probeIDs struct{}

var _ sdktrace.IDGenerator = probeIDs{}

func (probeIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	ids, _ := ctx.Value(idsKey{}).(spanIDs)
	return ids.trace, ids.span
}

func (probeIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	ids, _ := ctx.Value(idsKey{}).(spanIDs)
	return ids.span
}

func parseIDs(tc prober.TraceContext) (spanIDs, bool) {
	var ids spanIDs
	t, err1 := hex.DecodeString(tc.TraceID)
	s, err2 := hex.DecodeString(tc.SpanID)
	if err1 != nil || err2 != nil || len(t) != len(ids.trace) || len(s) != len(ids.span) {
		return ids, false
	}
	copy(ids.trace[:], t)
	copy(ids.span[:], s)
	return ids, ids.trace.IsValid() && ids.span.IsValid()
}
