package config

import (
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
)

// Config is the whole configuration file.
type Config struct {
	Global  Global             `yaml:"global"`
	Modules map[string]*Module `yaml:"modules"`
	Targets []*Target          `yaml:"targets"`
	// TargetDiscovery finds more targets with Prometheus's service
	// discovery (see discovery.go).
	TargetDiscovery []*TargetDiscovery `yaml:"target_discovery,omitempty"`
	// Tracing exports each probe's span over OTLP (see config/otlpcfg).
	Tracing Tracing `yaml:"tracing,omitempty"`
	// OTLPMetrics pushes GenAI metrics over OTLP (see config/otlpcfg).
	OTLPMetrics OTLPMetrics `yaml:"otlp_metrics,omitempty"`

	src source // for CheckFiles
}

// Global holds defaults and process-wide limits.
type Global struct {
	// Interval and Timeout are the defaults for targets that set none.
	Interval model.Duration `yaml:"interval"`
	Timeout  model.Duration `yaml:"timeout"`
	// MaxConcurrentProbes caps probes in flight across all targets.
	MaxConcurrentProbes int `yaml:"max_concurrent_probes"`
	// KeepAliveTimeout is how long a probe's connection stays open for the
	// next probe of its target.
	KeepAliveTimeout model.Duration `yaml:"keep_alive_timeout"`
	// Location names where this prober runs (a region, a cluster); it is
	// the location label of every probe series. --probe.location wins.
	Location string `yaml:"location,omitempty"`
	// Warmup keeps the first probes after a target restarts out of the
	// SLO counters (see warmup.go); targets may override it.
	Warmup Warmup `yaml:"warmup"`
}

// API selects the OpenAI-compatible endpoint a module calls.
type API string

const (
	APIChat        API = "chat"        // POST /v1/chat/completions
	APICompletions API = "completions" // POST /v1/completions
)

// Message is one chat message.
type Message struct {
	Role    string `yaml:"role"`
	Content string `yaml:"content"`
}

// StreamOptions mirrors the OpenAI/vLLM stream_options body field.
// Nil pointers mean "use the default" (both true).
type StreamOptions struct {
	IncludeUsage         *bool `yaml:"include_usage"`
	ContinuousUsageStats *bool `yaml:"continuous_usage_stats"`
}

// SLO holds per-probe latency objectives; zero means "not set".
// A probe is good only if it succeeded and met every SLO that is set.
type SLO struct {
	TTFT model.Duration `yaml:"ttft,omitempty"`
	TPOT model.Duration `yaml:"tpot,omitempty"`
	E2EL model.Duration `yaml:"e2el,omitempty"`
	// MaxITL bounds the longest gap between consecutive content chunks of
	// one probe (not the wait for the first): a mid-answer stall that a
	// mean such as TPOT hides.
	MaxITL model.Duration `yaml:"max_itl,omitempty"`
}

// Validators check the generated output of a successful stream.
type Validators struct {
	// OutputRegex must match the generated text (RE2 syntax).
	OutputRegex *Regexp `yaml:"output_regex,omitempty"`
	// MinOutputTokens is the least number of output tokens accepted.
	MinOutputTokens int `yaml:"min_output_tokens,omitempty"`
}

// Module describes one kind of synthetic request.
type Module struct {
	API         API       `yaml:"api"`
	Messages    []Message `yaml:"messages,omitempty"` // chat only
	Prompt      string    `yaml:"prompt,omitempty"`   // completions only
	MaxTokens   int       `yaml:"max_tokens"`
	Temperature *float64  `yaml:"temperature,omitempty"`
	IgnoreEOS   bool      `yaml:"ignore_eos,omitempty"`
	MinTokens   int       `yaml:"min_tokens,omitempty"`
	// ExtraBody is merged into the JSON request body last. It may not
	// override what the prober sets (model, stream, messages, prompt,
	// stream_options, max_tokens, min_tokens, temperature, ignore_eos).
	ExtraBody     map[string]any `yaml:"extra_body,omitempty"`
	StreamOptions StreamOptions  `yaml:"stream_options"`
	SLO           SLO            `yaml:"slo,omitempty"`
	Validators    Validators     `yaml:"validators,omitempty"`
	// Cache chooses whether probes see the server's prefix cache: warm
	// (default), cold or paired (see cache.go).
	Cache CacheMode `yaml:"cache,omitempty"`
	// PromptTokens, if set, sizes the prompt to this many tokens (see
	// cache.go); messages and prompt then become optional.
	PromptTokens int `yaml:"prompt_tokens,omitempty"`

	Name string `yaml:"-"` // the key under modules:
	Line int    `yaml:"-"` // where it was defined, for messages
}

// Backend names the server software behind a target: one of
// backend.Names(), "auto" (the default) to detect it.
type Backend string

// ServerMetrics configures scraping a target's own /metrics.
type ServerMetrics struct {
	Enabled  bool           `yaml:"enabled"`
	Path     string         `yaml:"path"`     // default /metrics
	Interval model.Duration `yaml:"interval"` // default: the target's interval
	Timeout  model.Duration `yaml:"timeout"`  // default: min(10s, 80% of interval)
	// Passthrough re-exports raw families whose full name matches one of
	// these regexes (use Regexp.MatchFull), with the target label added.
	Passthrough []*Regexp `yaml:"passthrough,omitempty"`
	// HTTPClientConfig overrides the target's client config when set.
	HTTPClientConfig *config.HTTPClientConfig `yaml:"http_client_config,omitempty"`
}

// Target is one inference server endpoint.
type Target struct {
	Name     string         `yaml:"name"`
	URL      string         `yaml:"url"` // base URL, e.g. http://vllm:8000
	Model    string         `yaml:"model"`
	Backend  Backend        `yaml:"backend"`
	Modules  []string       `yaml:"modules"`
	Interval model.Duration `yaml:"interval"`
	Timeout  model.Duration `yaml:"timeout"`
	// Labels are extra, static labels exported only on llm_prober_target_info
	// (join with group_left) so that probe series stay bounded.
	Labels model.LabelSet `yaml:"labels,omitempty"`
	// DiscoveredBy is the target_discovery entry that found the target;
	// empty for a static target. Not read from the file.
	DiscoveredBy     string                  `yaml:"discovered_by,omitempty"`
	HTTPClientConfig config.HTTPClientConfig `yaml:"http_client_config"`
	ServerMetrics    ServerMetrics           `yaml:"server_metrics"`
	// Warmup overrides the fields of global.warmup it sets.
	Warmup Warmup `yaml:"warmup"`
	// Capacity is the knee the target's server was measured at, for the
	// headroom metrics (see capacity.go); nil when not set.
	Capacity *Capacity `yaml:"capacity,omitempty"`

	Line int `yaml:"-"` // where it was defined, for messages
}

// Defaults.
const (
	DefaultInterval            = 30 * time.Second
	DefaultTimeout             = 20 * time.Second
	DefaultMaxConcurrentProbes = 64
	// DefaultKeepAliveTimeout lets probes at intervals under 10 s reuse
	// their connection where the server keeps it open (vLLM's uvicorn
	// closes idle ones after 5 s); at longer intervals each probe opens a
	// new one, as a low-rate client would, instead of holding a socket and
	// two goroutines per target.
	DefaultKeepAliveTimeout = 10 * time.Second
	DefaultMaxTokens        = 64
	DefaultMetricsPath      = "/metrics"
	MaxTargetLabels         = 8
)

// Caps on what a target's labels and URL may hold: they are re-exported on
// every probe series and status page, and a discovered target sets them
// (a 50 MB label value made a 52 MB /metrics).
const (
	MaxLabelNameBytes  = 128
	MaxLabelValueBytes = 1024
	MaxURLBytes        = 2048
)
