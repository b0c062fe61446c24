package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prompt"
)

// shapeFlags are bench's traffic shapes besides a constant rate: a
// ramp-up within the run (vllm bench serve's flags) and trace replay.
type shapeFlags struct {
	rampStrategy                 string
	rampStart, rampEnd           float64
	rampStartSet, rampEndSet     bool
	traceScale                   float64
	traceBlock                   int
	traceScaleSet, traceBlockSet bool
	turns                        int
	think                        time.Duration
	turnsSet, thinkSet           bool
}

func (s *shapeFlags) register(c *kingpin.CmdClause) {
	c.Flag("ramp-up-strategy", "Ramp the open-loop rate over the run from --ramp-up-start-rps to --ramp-up-end-rps, request by request (vllm bench serve's): linear or exponential; the report splits the run in stages. Leave --request-rate unset.").EnumVar(&s.rampStrategy, loadtest.RampLinear, loadtest.RampExponential)
	c.Flag("ramp-up-start-rps", "Ramp-up: the first request's rate (req/s; > 0 for exponential).").IsSetByUser(&s.rampStartSet).Float64Var(&s.rampStart)
	c.Flag("ramp-up-end-rps", "Ramp-up: the last request's rate (req/s).").IsSetByUser(&s.rampEndSet).Float64Var(&s.rampEnd)
	c.Flag("turns", "Conversations: turns of a synthetic session (each --input-tokens of new user message, --output-tokens of answer).").Default("4").IsSetByUser(&s.turnsSet).IntVar(&s.turns)
	c.Flag("think-time", "Conversations: pause between an answer and the session's next turn.").Default("1s").IsSetByUser(&s.thinkSet).DurationVar(&s.think)
	c.Flag("trace-time-scale", "Trace replay: multiply the trace's time offsets by this (0.5 replays twice as fast).").Default("1").IsSetByUser(&s.traceScaleSet).Float64Var(&s.traceScale)
	c.Flag("trace-block-size", "Trace replay: tokens per hash id of a Mooncake trace; requests share a prefix exactly where their leading hash ids agree.").Default("512").IsSetByUser(&s.traceBlockSet).IntVar(&s.traceBlock)
}

// ramp is the --ramp-up-* flags, nil without --ramp-up-strategy.
func (s *shapeFlags) ramp() *loadtest.Ramp {
	if s.rampStrategy == "" {
		return nil
	}
	return &loadtest.Ramp{Strategy: s.rampStrategy, Start: s.rampStart, End: s.rampEnd}
}

// checkShape refuses shape flags that cannot work together, before any
// load: a ramp and a trace set the rate themselves and count by request.
func (env *benchEnv) checkShape() error {
	b, s := env.b, &env.b.shape
	trace := b.dataset == "trace"
	if s.rampStrategy == "" && (s.rampStartSet || s.rampEndSet) {
		return errors.New("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear or exponential")
	}
	if !trace && (s.traceScaleSet || s.traceBlockSet) {
		return errors.New("--trace-time-scale and --trace-block-size need --dataset-name trace")
	}
	if err := env.checkConversations(); err != nil {
		return err
	}
	if s.rampStrategy == "" && !trace {
		return nil
	}
	name := "--ramp-up-strategy"
	if trace {
		name = "--dataset-name trace"
	}
	_, warmupFor, _ := b.warmupSpec()
	switch {
	case s.rampStrategy != "" && trace:
		return errors.New("a trace sets its own arrival times: no --ramp-up-strategy with --dataset-name trace")
	case s.rampStrategy != "" && !(s.rampStartSet && s.rampEndSet):
		return errors.New("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps")
	case !math.IsInf(env.rate, 1):
		return fmt.Errorf("%s sets the rate itself: leave --request-rate unset", name)
	case b.concurrency > 0:
		return fmt.Errorf("%s is open-loop: drop --concurrency", name)
	case b.duration > 0 || warmupFor > 0:
		return fmt.Errorf("%s counts by request: use --num-prompts and a --warmup count, not a duration", name)
	case b.sweep || b.rates != "":
		return fmt.Errorf("%s is one run whose rate changes: no --sweep or --rates", name)
	case trace && (!(s.traceScale > 0) || math.IsInf(s.traceScale, 0)):
		return fmt.Errorf("--trace-time-scale %g must be a positive number (0.5: twice as fast)", s.traceScale)
	case trace && s.traceBlock < 1:
		return fmt.Errorf("--trace-block-size %d must be at least 1", s.traceBlock)
	}
	if r := s.ramp(); r != nil {
		return r.Check()
	}
	return nil
}

// trace loads --dataset-path as a trace, its blocks sized by z; a trace
// with requests past the server's context is refused before any load,
// and the tokenizer (if any) re-counts a sample of its prompts.
func (s *shapeFlags) trace(ctx context.Context, path string, seed int64, tk *prompt.Tokenizer, z *loadtest.Sizing, limit int, source string) (loadtest.Workload, *loadtest.Sizing, error) {
	t, err := loadtest.LoadTrace(path, loadtest.TraceOptions{Scale: s.traceScale, BlockSize: s.traceBlock, Seed: seed, Tok: z})
	if err != nil {
		return nil, nil, err
	}
	if err := t.CheckContext(limit, z.Overhead, source); err != nil {
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
func (s *shapeFlags) apply(o *loadtest.Options, w loadtest.Workload, numPromptsSet bool) {
	o.Ramp = s.ramp()
	if t, ok := w.(loadtest.Timeline); ok && !numPromptsSet {
		o.NumPrompts = max(t.Len()-o.WarmupRequests, 1)
	}
}

// checkConversations checks the multi-turn flags: sessions arrive at
// --request-rate (sessions/s), --num-prompts counts them, history is chat.
func (env *benchEnv) checkConversations() error {
	b, s := env.b, &env.b.shape
	if b.dataset != "conversations" {
		if s.turnsSet || s.thinkSet {
			return errors.New("--turns and --think-time need --dataset-name conversations")
		}
		return nil
	}
	_, warmupFor, _ := b.warmupSpec()
	switch {
	case b.api != "chat":
		return errors.New("--dataset-name conversations sends the history as chat messages: use --api chat")
	case s.rampStrategy != "":
		return errors.New("no --ramp-up-strategy with --dataset-name conversations")
	case b.concurrency > 0:
		return errors.New("--dataset-name conversations: sessions arrive at --request-rate (sessions/s); drop --concurrency (--max-concurrency caps requests)")
	case b.duration > 0 || warmupFor > 0:
		return errors.New("--dataset-name conversations counts sessions: use --num-prompts and a --warmup count, not a duration")
	case b.sweep || b.rates != "":
		return errors.New("--dataset-name conversations is one run: no --sweep or --rates")
	case s.turns < 1 || s.turns > 1000:
		return fmt.Errorf("--turns %d must be in [1, 1000]", s.turns)
	case s.think < 0:
		return errors.New("--think-time cannot be negative")
	case b.datasetPath != "" && s.turnsSet:
		return errors.New("--turns is for synthetic sessions: ShareGPT conversations keep their own turns")
	}
	return nil
}

// conversations builds the multi-turn workload: ShareGPT's every turn
// with --dataset-path, else synthetic sessions of --turns.
func (s *shapeFlags) conversations(ctx context.Context, b *benchFlags, do loadtest.DatasetOptions, z *loadtest.Sizing) (loadtest.Workload, *loadtest.Sizing, error) {
	if b.datasetPath != "" {
		z.Dataset = true
		c, err := loadtest.LoadConversations(ctx, b.datasetPath, s.think, do)
		return c, z, err
	}
	syn := loadtest.NewSynthetic(b.inTok, b.outTok, b.prefixTok, b.rangeRatio, b.seed, z)
	return &loadtest.Conversations{Think: s.think, Syn: syn, Turns: s.turns}, z, nil
}

// fitHistory refuses synthetic sessions whose last turn, carrying every
// earlier message and answer, cannot fit the server's context: each turn
// would fail there and end its session.
func (s *shapeFlags) fitHistory(dataset string, in, out, overhead, limit int, source string) error {
	if dataset != "conversations" || limit <= 0 || s.turns*(in+out)+overhead <= limit {
		return nil
	}
	return fmt.Errorf("--turns %d of --input-tokens and --output-tokens: the last turn carries a history of up to %d tokens (%d the server adds), past the server's context of %d tokens (%s); lower them",
		s.turns, s.turns*(in+out)+overhead, overhead, limit, source)
}
