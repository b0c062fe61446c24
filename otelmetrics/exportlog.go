package otelmetrics

import (
	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/internal/otlphttp"
)

// newPushLog logs the pushes' outcomes on state changes, as package
// tracing does for spans: a dead endpoint is one line, not one per
// interval.
func newPushLog(logger log.Logger) *otlphttp.FailureLog {
	return otlphttp.NewFailureLog(logger, otlphttp.Messages{
		Failing:      "otlp_metrics: push failing; the histograms are cumulative, the next push that succeeds carries them",
		StillFailing: "otlp_metrics: push still failing",
		Recovered:    "otlp_metrics: push recovered",
		CountKey:     "failed_pushes",
	})
}
