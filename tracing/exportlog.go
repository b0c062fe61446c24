package tracing

import (
	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/internal/otlphttp"
)

// newExportLog logs the span exporter's outcomes on state changes: with
// no collector listening that is one line, not one per batch (every 5 s).
func newExportLog(logger log.Logger) *otlphttp.FailureLog {
	return otlphttp.NewFailureLog(logger, otlphttp.Messages{
		Failing:      "tracing: OTLP span export failing; probe spans are dropped until it recovers",
		StillFailing: "tracing: OTLP span export still failing",
		Recovered:    "tracing: OTLP span export recovered",
		CountKey:     "failed_exports",
	})
}
