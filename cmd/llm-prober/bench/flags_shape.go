package bench

import (
	"github.com/alecthomas/kingpin/v2"
	"github.com/llm-prober/llm-prober/loadtest"
)

// addShapeFlags registers the traffic shapes' flags (ShapeConfig).
func addShapeFlags(c *kingpin.CmdClause, s *ShapeConfig) {
	c.Flag("ramp-up-strategy", "Ramp the open-loop rate over the run from --ramp-up-start-rps to --ramp-up-end-rps, request by request (vllm bench serve's): linear or exponential; the report splits the run in stages. Leave --request-rate unset.").EnumVar(&s.RampStrategy, loadtest.RampLinear, loadtest.RampExponential)
	c.Flag("ramp-up-start-rps", "Ramp-up: the first request's rate (req/s; > 0 for exponential).").IsSetByUser(&s.RampStartSet).Float64Var(&s.RampStart)
	c.Flag("ramp-up-end-rps", "Ramp-up: the last request's rate (req/s).").IsSetByUser(&s.RampEndSet).Float64Var(&s.RampEnd)
	c.Flag("turns", "Conversations: turns of a synthetic session (each --input-tokens of new user message, --output-tokens of answer).").Default("4").IsSetByUser(&s.TurnsSet).IntVar(&s.Turns)
	c.Flag("think-time", "Conversations: pause between an answer and the session's next turn.").Default("1s").IsSetByUser(&s.ThinkSet).DurationVar(&s.Think)
	c.Flag("trace-time-scale", "Trace replay: multiply the trace's time offsets by this (0.5 replays twice as fast).").Default("1").IsSetByUser(&s.TraceScaleSet).Float64Var(&s.TraceScale)
	c.Flag("trace-block-size", "Trace replay: tokens per hash id of a Mooncake trace; requests share a prefix exactly where their leading hash ids agree.").Default("512").IsSetByUser(&s.TraceBlockSet).IntVar(&s.TraceBlock)
}
