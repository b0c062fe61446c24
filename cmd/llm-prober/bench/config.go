package bench

import (
	"time"

	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/sweep"

	"github.com/prometheus/exporter-toolkit/web"
)

// Config is one `llm-prober bench` invocation: what to run, how to
// decide and where to write, as its flags give it. A field's flag is its
// name in lower case and dashed (NumPrompts: --num-prompts) unless its
// comment names another; the flags' help says what each means. Run
// checks every field before anything runs, and its errors name the flag.
type Config struct {
	URL, Model, API, Target, APIKeyFile string
	ConfigFile                          string // --config.file

	Rate           string // --request-rate: a number or inf
	Burstiness     float64
	MaxConcurrency int
	Concurrency    int
	NumPrompts     int
	NumPromptsSet  bool // --num-prompts given: a trace then replays only that many
	Duration       time.Duration
	Warmup         string // a number of requests or a duration

	Dataset                                 string // --dataset-name
	DatasetPath                             string
	InputTokens, OutputTokens, PrefixTokens int
	OutputTokensSet                         bool // --output-tokens given: it overrides a dataset's
	RangeRatio                              float64
	Seed                                    int64
	SeedSet                                 bool // --seed given; else fresh runs draw one at random
	Goodput, Percentiles                    string
	Timeout, IdleTimeout                    time.Duration
	IgnoreEOS, ContinuousUsage              bool
	Temperature                             string // "": the server's
	OutputJSON, Progress                    string
	OutputCSV                               string
	NumRuns                                 int
	FailOn                                  []string
	ServerMetrics                           bool
	MetricsInterval                         time.Duration
	Sweep                                   bool
	Rates                                   string
	SweepSteps, SweepRefine                 int
	KneeGoodput                             float64
	Curve                                   string
	Report                                  string // --report: the HTML report
	DailyRequests, PeakRPS                  float64
	PeakToAverage, Headroom                 float64
	GPUsPerReplica                          int // --gpus-per-replica
	KneeRate                                float64
	FreshPrompts                            bool
	MinSamples                              int
	Label                                   string
	SaveTexts                               bool // --save-generated-texts
	Derive                                  DeriveConfig
	Shape                                   ShapeConfig
	Shard                                   ShardConfig
	// Clock, for tests, replaces the shard's clock estimate (an
	// injected offset).
	Clock      func() shard.Clock
	Servers    ServerSweepConfig // --server-cmd …: a configuration sweep
	ExtraURLs  []string          // --extra-metrics-url
	ExtraMatch []string          // --extra-metrics-match
	OTLP       otlpFlags         // --otlp-metrics.*: GenAI metrics pushed over OTLP
	Web        *web.FlagConfig   // --web.listen-address, --web.config.file: live metrics (report.StartLive)
	// LiveHook, for tests, gets the live listener's address once it
	// serves and again just before it closes.
	LiveHook func(addr string, closing bool)
	// Version is llm-prober's, for the run's metadata.
	Version string

	// sweepHook, set by a configuration sweep, gets each rate sweep.
	sweepHook func(*sweep.Sweep)

	// LogIsTerminal: the log writer is a terminal, so --progress auto
	// draws a bar rather than lines.
	LogIsTerminal bool
}
