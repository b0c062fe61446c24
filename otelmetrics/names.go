package otelmetrics

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// The one table of names: every instrument, attribute and value this
// package emits comes from here, pinned to one version of the
// OpenTelemetry semantic conventions (the last Go constants of GenAI
// before it left the core repository). A rename (gen_ai.client.inference.*)
// is an edit of this file; docs/opentelemetry.md lists the same names and
// names_test.go checks that it does.

// ConventionsVersion is the semantic-conventions version of the names,
// and SchemaURL the resource's schema URL, which says so to a consumer.
const (
	ConventionsVersion = "1.41.0"
	SchemaURL          = semconv.SchemaURL
)

// instrument is one GenAI histogram: its name, unit and description as
// the conventions give them, and the bucket boundaries they advise.
type instrument struct {
	name, unit, desc string
	bounds           []float64
}

// Advised bucket boundaries (gen-ai-metrics.md, semantic conventions 1.41.0).
var (
	durationBounds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBounds    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

var (
	clientDuration = instrument{genaiconv.ClientOperationDuration{}.Name(), genaiconv.ClientOperationDuration{}.Unit(),
		genaiconv.ClientOperationDuration{}.Description(), durationBounds}
	clientTokens = instrument{genaiconv.ClientTokenUsage{}.Name(), genaiconv.ClientTokenUsage{}.Unit(),
		genaiconv.ClientTokenUsage{}.Description(), tokenBounds}
	clientTTFC = instrument{genaiconv.ClientOperationTimeToFirstChunk{}.Name(), genaiconv.ClientOperationTimeToFirstChunk{}.Unit(),
		genaiconv.ClientOperationTimeToFirstChunk{}.Description(), durationBounds}
	clientTPOC = instrument{genaiconv.ClientOperationTimePerOutputChunk{}.Name(), genaiconv.ClientOperationTimePerOutputChunk{}.Unit(),
		genaiconv.ClientOperationTimePerOutputChunk{}.Description(), durationBounds}

	// The server half: bounds are the server's own, as scraped.
	serverDuration = instrument{name: genaiconv.ServerRequestDuration{}.Name(), unit: genaiconv.ServerRequestDuration{}.Unit(),
		desc: genaiconv.ServerRequestDuration{}.Description()}
	serverTTFT = instrument{name: genaiconv.ServerTimeToFirstToken{}.Name(), unit: genaiconv.ServerTimeToFirstToken{}.Unit(),
		desc: genaiconv.ServerTimeToFirstToken{}.Description()}
	serverTPOT = instrument{name: genaiconv.ServerTimePerOutputToken{}.Name(), unit: genaiconv.ServerTimePerOutputToken{}.Unit(),
		desc: genaiconv.ServerTimePerOutputToken{}.Description()}
)

// Attribute keys.
var (
	keyOperation = semconv.GenAIOperationNameKey
	keyProvider  = semconv.GenAIProviderNameKey
	keyModel     = semconv.GenAIRequestModelKey
	keyTokenType = semconv.GenAITokenTypeKey
	keyAddress   = semconv.ServerAddressKey
	keyPort      = semconv.ServerPortKey
	keyError     = semconv.ErrorTypeKey
	// Ours, to join with the llm_prober_* series (bounded by the config).
	keyTarget = attribute.Key("llm_prober.target")
	keyModule = attribute.Key("llm_prober.module")
	keyEngine = attribute.Key("llm_prober.engine")
)

// Attribute values.
var (
	OperationChat           = string(genaiconv.OperationNameChat)
	OperationTextCompletion = string(genaiconv.OperationNameTextCompletion)
	tokenInput              = string(genaiconv.TokenTypeInput)
	tokenOutput             = string(genaiconv.TokenTypeOutput)
)

// ProviderUnknown is gen_ai.provider.name for a target whose backend is
// left to detection: the conventions have no "other" value.
const ProviderUnknown = "unknown"

// serverFamilies maps the collector's re-exported histograms to the
// GenAI server instruments whose meaning they share, and the backends
// whose source histogram means something else (docs/opentelemetry.md
// says why for each).
var serverFamilies = map[string]struct {
	inst instrument
	not  []string // backends not translated
}{
	"llm_prober_server_e2e_request_latency_seconds":   {serverDuration, nil},
	"llm_prober_server_time_to_first_token_seconds":   {serverTTFT, nil},
	"llm_prober_server_time_per_output_token_seconds": {serverTPOT, []string{"tgi"}},
}
