package cfgsweep

import (
	"math"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// A row's status.
const (
	StatusOK          = "ok"          // the knee was found
	StatusLowerBound  = "lower_bound" // every rate held: the knee is above the top one
	StatusNoKnee      = "no_knee"     // no rate met the knee's goodput
	StatusFailed      = "failed"      // the server did not start, was not ready, or exited during its sweep
	StatusInterrupted = "interrupted" // stopped by an interrupt: not a result, --resume runs it again
)

// Row is one configuration's outcome.
type Row struct {
	Name       string  `json:"name,omitempty"`
	Params     []Param `json:"params"`
	Key        string  `json:"key"`
	Command    string  `json:"command"`
	Status     string  `json:"status"`
	Error      string  `json:"error,omitempty"`
	ExitStatus string  `json:"exit_status,omitempty"` // a server that exited on its own
	LogTail    string  `json:"log_tail,omitempty"`    // its last lines (raw; escaped when shown)
	LogFile    string  `json:"log_file,omitempty"`    // its whole output, beside the result file (capped)
	Facts
	// The knee: the achieved req/s (what a plan divides by), the offered
	// rate and its 95 % interval (offered, as the sweep's rates are), and
	// at the knee point the throughput and tail latencies (ms, at Tail).
	KneeRate         float64      `json:"knee_achieved_request_rate,omitempty"`
	KneeOffered      float64      `json:"knee_request_rate,omitempty"`
	KneeLow          float64      `json:"knee_request_rate_ci95_low,omitempty"`
	KneeHigh         float64      `json:"knee_request_rate_ci95_high,omitempty"`
	LowerBound       float64      `json:"knee_lower_bound_request_rate,omitempty"`
	OutputThroughput float64      `json:"output_throughput,omitempty"`
	TailTTFT         float64      `json:"tail_ttft_ms,omitempty"`
	TailTPOT         float64      `json:"tail_tpot_ms,omitempty"`
	Tail             float64      `json:"tail_percentile,omitempty"`
	Bottleneck       string       `json:"bottleneck,omitempty"` // the verdict past the knee (or at it)
	GPUs             int          `json:"gpus,omitempty"`       // for the plan's demand
	Replicas         int          `json:"replicas,omitempty"`
	Curve            []CurvePoint `json:"curve,omitempty"`
}

// CurvePoint is one sweep point, for the curves of every configuration.
type CurvePoint struct {
	Kind             string  `json:"kind"`
	Rate             float64 `json:"rate,omitempty"` // offered; 0 for the synchronous and max-throughput points
	RequestRate      float64 `json:"request_throughput"`
	OutputThroughput float64 `json:"output_throughput"`
	TailTTFT         float64 `json:"tail_ttft_ms"`
	TailTPOT         float64 `json:"tail_tpot_ms"`
	GoodputPercent   float64 `json:"goodput_percent"`
}

// Plan is the demand the configurations are sized for (capacity.NewPlan's
// inputs); no demand: GPUs are not computed.
type Plan struct {
	DailyRequests  float64 `json:"daily_requests,omitempty"`
	PeakRPS        float64 `json:"peak_rps,omitempty"`
	PeakToAverage  float64 `json:"peak_to_average,omitempty"`
	Headroom       float64 `json:"headroom,omitempty"`
	GPUsPerReplica int     `json:"gpus_per_replica,omitempty"`
}

func (p Plan) demand() bool { return p.DailyRequests > 0 || p.PeakRPS > 0 }

// Result is the whole sweep across configurations.
type Result struct {
	Format      int     `json:"llm_prober_config_sweep"` // formatVersion
	Mode        string  `json:"mode"`                    // start or apply
	Command     string  `json:"command"`                 // the template
	KneeGoodput float64 `json:"knee_goodput_percent"`
	Plan        Plan    `json:"plan"`
	Rows        []Row   `json:"rows"`
	Best        *Best   `json:"best,omitempty"`
}

const formatVersion = 1

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// fill sets a row's knee, curve and plan from its sweep.
func (r *Row) fill(sw *sweep.Sweep, plan Plan) {
	tail := sw.Tail()
	r.Tail = tail
	for _, p := range sw.Points {
		rate := p.Rate
		if p.Kind == sweep.PointMax || p.Kind == sweep.PointSync {
			rate = 0
		}
		rep := p.Report
		r.Curve = append(r.Curve, CurvePoint{Kind: p.Kind, Rate: finite(rate), RequestRate: finite(rep.RequestThroughput),
			OutputThroughput: finite(rep.OutputThroughput), TailTTFT: finite(rep.TTFT.Value(tail)), TailTPOT: finite(rep.TPOT.Value(tail)),
			GoodputPercent: finite(rep.GoodputPercent)})
	}
	switch {
	case sw.Interrupted:
		r.Status = StatusInterrupted
	case sw.Knee != nil:
		r.Status = StatusOK
		k := sw.Knee.Report
		r.KneeRate, r.KneeOffered = finite(sw.KneeRate()), finite(sw.Knee.Rate)
		r.OutputThroughput, r.TailTTFT, r.TailTPOT = finite(k.OutputThroughput), finite(k.TTFT.Value(tail)), finite(k.TPOT.Value(tail))
		r.Bottleneck = sw.Knee.Verdict
		if sw.FirstBad != nil {
			r.Bottleneck = sw.FirstBad.Verdict
		}
		if lo, hi, ok := sw.KneeCI(); ok {
			r.KneeLow, r.KneeHigh = finite(lo), finite(hi)
		}
		if plan.demand() {
			if p, err := capacity.NewPlan(r.KneeRate, plan.DailyRequests, plan.PeakRPS, plan.PeakToAverage, plan.Headroom, plan.GPUsPerReplica); err == nil {
				r.GPUs, r.Replicas = p.GPUs, p.Replicas
			}
		}
	case sw.Above != nil:
		r.Status = StatusLowerBound
		r.LowerBound = finite(sw.Above.Report.RequestThroughput)
		r.Error = "every rate met the knee's goodput: the knee is above the top rate (extend --rates)"
	default:
		r.Status = StatusNoKnee
		r.Error = "no rate met the knee's goodput"
	}
}
