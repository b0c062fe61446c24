package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/prompt"
)

// ShapeConfig is bench's traffic shapes besides a constant rate: a ramp-up
// within the run (vllm bench serve's flags), trace replay and multi-turn
// Sessions. The ...Set fields say which flags the user gave.
type ShapeConfig struct {
	RampStrategy                 string  // --ramp-up-strategy
	RampStart, RampEnd           float64 // --ramp-up-start-rps, --ramp-up-end-rps
	RampStartSet, RampEndSet     bool
	TraceScale                   float64 // --trace-time-scale
	TraceBlock                   int     // --trace-block-size
	TraceScaleSet, TraceBlockSet bool
	Turns                        int           // --turns
	Think                        time.Duration // --think-time
	TurnsSet, ThinkSet           bool
}

// ramp is the --ramp-up-* flags, nil without --ramp-up-strategy.
func (s *ShapeConfig) ramp() *loadtest.Ramp {
	if s.RampStrategy == "" {
		return nil
	}
	return &loadtest.Ramp{Strategy: s.RampStrategy, Start: s.RampStart, End: s.RampEnd}
}

// checkShape refuses shape flags that cannot work together, before any
// load: a ramp and a trace set the rate themselves and count by request.
func (env *benchEnv) checkShape() error {
	b, s := env.b, &env.b.Shape
	trace := b.Dataset == "trace"
	if s.RampStrategy == "" && (s.RampStartSet || s.RampEndSet) {
		return errors.New("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear or exponential")
	}
	if !trace && (s.TraceScaleSet || s.TraceBlockSet) {
		return errors.New("--trace-time-scale and --trace-block-size need --dataset-name trace")
	}
	if err := env.checkConversations(); err != nil {
		return err
	}
	if s.RampStrategy == "" && !trace {
		return nil
	}
	name := "--ramp-up-strategy"
	if trace {
		name = "--dataset-name trace"
	}
	_, warmupFor, _ := b.warmupSpec()
	switch {
	case s.RampStrategy != "" && trace:
		return errors.New("a trace sets its own arrival times: no --ramp-up-strategy with --dataset-name trace")
	case s.RampStrategy != "" && !(s.RampStartSet && s.RampEndSet):
		return errors.New("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps")
	case !math.IsInf(env.rate, 1):
		return fmt.Errorf("%s sets the rate itself: leave --request-rate unset", name)
	case b.Concurrency > 0:
		return fmt.Errorf("%s is open-loop: drop --concurrency", name)
	case b.Duration > 0 || warmupFor > 0:
		return fmt.Errorf("%s counts by request: use --num-prompts and a --warmup count, not a duration", name)
	case b.Sweep || b.Rates != "":
		return fmt.Errorf("%s is one run whose rate changes: no --sweep or --rates", name)
	case trace && !(s.TraceScale >= workload.MinTraceScale && s.TraceScale <= workload.MaxTraceScale):
		return fmt.Errorf("--trace-time-scale %g must be in [%g, %g] (0.5: twice as fast)", s.TraceScale, workload.MinTraceScale, workload.MaxTraceScale)
	case trace && s.TraceBlock < 1:
		return fmt.Errorf("--trace-block-size %d must be at least 1", s.TraceBlock)
	}
	if r := s.ramp(); r != nil {
		return r.Check()
	}
	return nil
}

// trace loads --dataset-path as a trace, its blocks sized by z; a trace
// with requests past the server's context is refused before any load,
// and the tokenizer (if any) re-counts a sample of its prompts.
func (s *ShapeConfig) trace(ctx context.Context, path string, seed int64, tk *prompt.Tokenizer, z *workload.Sizing, limit int, source string) (workload.Workload, *workload.Sizing, error) {
	t, err := workload.LoadTrace(path, workload.TraceOptions{Scale: s.TraceScale, BlockSize: s.TraceBlock, Seed: seed, Tok: z})
	if err != nil {
		return nil, nil, fileError(ctx, err, path)
	}
	if err := t.CheckContext(limit, z.Overhead+z.Template, source); err != nil {
		return nil, nil, err
	}
	z.Context, z.ContextSource = limit, source
	if tk != nil {
		if err := z.Check(ctx, tk, t, min(8, t.Len())); err != nil { // the report's "re-counted" line
			return nil, nil, err
		}
	}
	return t, z, nil
}

// apply sets the ramp in o; a trace replays every request it holds (past
// the warm-up) unless --num-prompts asks for fewer.
func (s *ShapeConfig) apply(o *loadtest.Options, w workload.Workload, numPromptsSet bool) {
	o.Ramp = s.ramp()
	if t, ok := w.(loadtest.Timeline); ok && !numPromptsSet {
		o.NumPrompts = max(t.Len()-o.WarmupRequests, 1)
	}
}

// checkConversations checks the multi-turn flags: sessions arrive at
// --request-rate (sessions/s), --num-prompts counts them, history is chat.
func (env *benchEnv) checkConversations() error {
	b, s := env.b, &env.b.Shape
	if b.Dataset != "conversations" {
		if s.TurnsSet || s.ThinkSet {
			return errors.New("--turns and --think-time need --dataset-name conversations")
		}
		return nil
	}
	_, warmupFor, _ := b.warmupSpec()
	switch {
	case b.API != "chat":
		return errors.New("--dataset-name conversations sends the history as chat messages: use --api chat")
	case s.RampStrategy != "":
		return errors.New("no --ramp-up-strategy with --dataset-name conversations")
	case b.Concurrency > 0:
		return errors.New("--dataset-name conversations: sessions arrive at --request-rate (sessions/s); drop --concurrency (--max-concurrency caps requests)")
	case b.Duration > 0 || warmupFor > 0:
		return errors.New("--dataset-name conversations counts sessions: use --num-prompts and a --warmup count, not a duration")
	case b.Sweep || b.Rates != "":
		return errors.New("--dataset-name conversations is one run: no --sweep or --rates")
	case s.Turns < 1 || s.Turns > 1000:
		return fmt.Errorf("--turns %d must be in [1, 1000]", s.Turns)
	case s.Think < 0:
		return errors.New("--think-time cannot be negative")
	case b.DatasetPath != "" && s.TurnsSet:
		return errors.New("--turns is for synthetic sessions: ShareGPT conversations keep their own turns")
	}
	return nil
}

// conversations builds the multi-turn workload: ShareGPT's every turn
// with --dataset-path, else synthetic sessions of --turns.
func (s *ShapeConfig) conversations(ctx context.Context, b *Config, do workload.DatasetOptions, z *workload.Sizing) (workload.Workload, *workload.Sizing, error) {
	if b.DatasetPath != "" {
		z.Dataset = true
		c, err := workload.LoadConversations(ctx, b.DatasetPath, s.Think, do)
		return c, z, fileError(ctx, err, b.DatasetPath)
	}
	syn := workload.NewSynthetic(b.InputTokens, b.OutputTokens, b.PrefixTokens, b.RangeRatio, b.Seed, z)
	return &workload.Conversations{Think: s.Think, Syn: syn, Turns: s.Turns}, z, nil
}

// fitHistory refuses synthetic sessions whose last turn, carrying every
// earlier message and answer, cannot fit the server's context: each turn
// would fail there and end its session.
func (s *ShapeConfig) fitHistory(dataset string, in, out, overhead, limit int, source string) error {
	if dataset != "conversations" || limit <= 0 || s.Turns*(in+out)+overhead <= limit {
		return nil
	}
	return fmt.Errorf("--turns %d of --input-tokens and --output-tokens: the last turn carries a history of up to %d tokens (%d the server adds), past the server's context of %d tokens (%s); lower them",
		s.Turns, s.Turns*(in+out)+overhead, overhead, limit, source)
}
