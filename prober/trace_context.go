package prober

import "github.com/llm-prober/llm-prober/prober/tracectx"

// TraceContext is the W3C trace context a probe sends (tracectx).
type TraceContext = tracectx.TraceContext

// Phases are when the connection steps of a probe ended (tracectx).
type Phases = tracectx.Phases

// NewTraceContext returns the trace context of the probe probeID
// (tracectx.New).
func NewTraceContext(probeID string) TraceContext { return tracectx.New(probeID) }

// exemplarOf is the exemplar value of r's latency observations: probe_id
// and, when the probe sent one, trace_id (see exemplarLabels).
func exemplarOf(r *Result) string {
	if r.Trace.TraceID == "" {
		return r.ID
	}
	return r.ID + "\x00" + r.Trace.TraceID
}
