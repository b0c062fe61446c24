package mockvllm

import "time"

// Dist is a latency distribution: uniform in [Mean-Jitter, Mean+Jitter],
// clamped at zero. A zero Jitter gives a fixed delay.
type Dist struct {
	Mean, Jitter time.Duration
}

func (d Dist) sample(rng *lockedRand) time.Duration {
	if d.Jitter <= 0 {
		return max(d.Mean, 0)
	}
	v := d.Mean - d.Jitter + time.Duration(rng.int64n(int64(2*d.Jitter)+1))
	return max(v, 0)
}

// SpecOptions turns on simulated speculative decoding.
type SpecOptions struct {
	// NumSpeculativeTokens is the number of draft tokens per decode step.
	NumSpeculativeTokens int
	// AcceptanceRate is the probability that each draft position is
	// accepted given the previous one was; a step emits 1 + the number of
	// leading accepted drafts.
	AcceptanceRate float64
}

// Options configures a Server. Start from DefaultOptions; New replaces
// zero values it cannot use with the defaults.
type Options struct {
	// Model is the served model name; requests naming another model get 404.
	Model string
	// Version is reported by GET /version.
	Version string
	// MaxModelLen bounds prompt+max_tokens (400 above it), as in vLLM.
	MaxModelLen int
	// TruncateAtContext makes a request whose prompt + max_tokens passes
	// MaxModelLen stop when the context is full (finish_reason "length",
	// fewer tokens than asked), as llama.cpp's slots do, instead of 400.
	TruncateAtContext bool

	// TTFT is the prefill time from being scheduled to the first output;
	// queueing comes on top of it.
	TTFT Dist
	// ITL is the gap between engine steps (SSE content chunks).
	ITL Dist
	// BatchSlowdown is added to each ITL draw per other running request,
	// so decode slows down as the batch grows, as on a real GPU.
	BatchSlowdown time.Duration
	// PerSequence makes decode saturate: each step takes
	// ITL + PerSequence × running (this request included; BatchSlowdown
	// is then ignored), so token throughput tends to 1/PerSequence and
	// latency climbs past a knee computable from the settings (see
	// SaturationRate).
	PerSequence time.Duration
	// TokensPerChunk is the number of tokens per decode step (>1 mimics
	// --stream-interval or speculative decoding). The first step after a
	// (re)prefill always carries one token, as vLLM's prefill step does.
	// Ignored when SpecDecode is set.
	TokensPerChunk int
	// DefaultMaxTokens applies when a request sets no max_tokens.
	DefaultMaxTokens int
	// EOSAfter, if >0, ends requests without ignore_eos with finish_reason
	// "stop" after this many tokens (but not before min_tokens).
	EOSAfter int

	// MaxRunning limits concurrently running requests (vLLM max_num_seqs);
	// the rest wait in FIFO order. <=0 means unlimited.
	MaxRunning int
	// KVBlocks is the KV-cache budget in blocks of BlockSize tokens. A
	// running request holds ceil((prompt+generated)/BlockSize) blocks.
	// <=0 means unlimited (no preemption, usage reported as 0).
	KVBlocks  int
	BlockSize int

	// SpecDecode, if set, simulates speculative decoding and exports the
	// vllm:spec_decode_* families.
	SpecDecode *SpecOptions
	// PrefixCacheHitRate is the fraction of prompt tokens reported as
	// prefix-cache hits (metrics and usage.prompt_tokens_details).
	PrefixCacheHitRate float64
	// PrefixCacheBlocks, if > 0, simulates vLLM's prefix cache instead of
	// PrefixCacheHitRate: prompts are hashed in blocks of BlockSize tokens
	// (chained, the first block salted with the request's cache_salt), a
	// request is served the longest run of cached leading blocks (never
	// its last token, as vLLM recomputes it), and its full blocks are then
	// cached, least recently used evicted beyond this many blocks.
	PrefixCacheBlocks int
	// PrefillPerToken is the prefill time per prompt token not served from
	// the prefix cache, added to TTFT: what makes cold and warm prefill
	// and long and short prompts differ.
	PrefillPerToken time.Duration
	// CharsPerToken, if > 0, makes the tokenizer split words into tokens
	// of at most this many bytes (so "government" is 4 tokens at 3),
	// instead of one token per word.
	CharsPerToken int
	// NoTokenize makes POST /tokenize answer 404, like a server without
	// one.
	NoTokenize bool
	// ChatTemplateTokens is how many tokens the chat template puts before
	// a chat request's messages: counted in usage, the prefix cache and
	// vLLM-style /tokenize of messages, not in llama.cpp-style /tokenize
	// of content.
	ChatTemplateTokens int

	// Faults gives per-request probabilities of each fault, for soak and
	// demo runs. The X-Mock-Fault request header overrides it.
	Faults FaultRates
	// FaultAfterChunks is how many content chunks a mid-stream fault lets
	// through first (fewer if the output is shorter).
	FaultAfterChunks int
	// StallTimeout caps how long a stall fault holds a request open.
	StallTimeout time.Duration
	// DecodeStall injects mid-stream generation stalls every so many
	// requests (see DecodeStall).
	DecodeStall DecodeStall
	// EngineDead starts the server with a dead engine: /health answers 503
	// and generation requests 500. See Server.SetEngineDead.
	EngineDead bool

	// HeadersWithFirstChunk delays streaming response headers until the
	// first output (like some simulators) instead of sending them at once
	// (like vLLM).
	HeadersWithFirstChunk bool
	// FinishOnLastChunk puts finish_reason on the last content chunk
	// instead of a separate chunk with an empty delta.
	FinishOnLastChunk bool

	// TraceCapacity is how many finished request traces are kept.
	TraceCapacity int
	// Seed seeds latency jitter, faults and spec-decode acceptance.
	Seed int64
}

// DefaultOptions returns settings for a lightly loaded small model.
func DefaultOptions() Options {
	return Options{
		Model:              "mock-model",
		Version:            "0.33.0",
		MaxModelLen:        32768,
		TTFT:               Dist{Mean: 150 * time.Millisecond, Jitter: 30 * time.Millisecond},
		ITL:                Dist{Mean: 20 * time.Millisecond, Jitter: 5 * time.Millisecond},
		BatchSlowdown:      time.Millisecond,
		TokensPerChunk:     1,
		DefaultMaxTokens:   128,
		MaxRunning:         32,
		KVBlocks:           4096,
		BlockSize:          16,
		PrefixCacheHitRate: 0.25,
		FaultAfterChunks:   2,
		StallTimeout:       10 * time.Minute,
		TraceCapacity:      10000,
		Seed:               1,
	}
}

// withDefaults fills fields whose zero value is unusable.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Model == "" {
		o.Model = d.Model
	}
	if o.Version == "" {
		o.Version = d.Version
	}
	if o.MaxModelLen <= 0 {
		o.MaxModelLen = d.MaxModelLen
	}
	if o.TokensPerChunk <= 0 {
		o.TokensPerChunk = 1
	}
	if o.DefaultMaxTokens <= 0 {
		o.DefaultMaxTokens = d.DefaultMaxTokens
	}
	if o.BlockSize <= 0 {
		o.BlockSize = d.BlockSize
	}
	if o.FaultAfterChunks <= 0 {
		o.FaultAfterChunks = d.FaultAfterChunks
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = d.StallTimeout
	}
	if o.TraceCapacity <= 0 {
		o.TraceCapacity = d.TraceCapacity
	}
	if o.SpecDecode != nil && o.SpecDecode.NumSpeculativeTokens <= 0 {
		o.SpecDecode = nil
	}
	return o
}
