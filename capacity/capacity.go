package capacity

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/llm-prober/llm-prober/internal/textfmt"
)

// Plan is a capacity plan from one replica's knee.
type Plan struct {
	KneeRate       float64 // req/s one replica serves within the SLOs
	DailyRequests  float64 // 0 when PeakRPS was given directly
	PeakToAverage  float64
	RequiredRate   float64 // peak req/s to serve
	Headroom       float64
	GPUsPerReplica int
	// DailySource and PeakSource say where the daily volume and the
	// peak-to-average came from when not from bench's flags (plan: the
	// served traffic).
	DailySource, PeakSource string

	BaseReplicas int // ceil(required / knee)
	Replicas     int // ceil(BaseReplicas × headroom)
	GPUs         int
}

// Bounds on the plan's inputs and results. A knee below MinKneeRate (one
// request in 11.6 days) or above MaxRate is a typo or a broken file, not a
// measurement; a plan beyond MaxReplicas replicas or MaxGPUs GPUs is an
// input off by orders of magnitude, and past 2^63 its integers wrap
// negative ("-9223372036854775808 replicas").
const (
	MinKneeRate = 1e-6
	MaxRate     = 1e9
	MaxReplicas = 1_000_000
	MaxGPUs     = 1_000_000
)

// CheckKnee refuses a knee rate that is not a finite number in
// [MinKneeRate, MaxRate] req/s.
func CheckKnee(knee float64) error {
	if !finite(knee) || knee < MinKneeRate || knee > MaxRate {
		return refuse("the knee rate %g req/s is not a number in [%g, %g]", knee, MinKneeRate, MaxRate)
	}
	return nil
}

// CheckDemand refuses demand and sizing inputs a plan cannot be computed
// from: non-finite numbers, negative or absurd volumes, a peak-to-average
// or headroom below 1 (0 is refused too: it is not "unset"), fewer than
// one GPU per replica. A peak-to-average is checked only with a daily
// volume: with --peak-rps it plays no part.
func CheckDemand(daily, peakRPS, peakToAverage, headroom float64, gpusPerReplica int) error {
	switch {
	case !finite(daily) || !finite(peakRPS):
		return refuse("--daily-requests %g and --peak-rps %g must be finite numbers", daily, peakRPS)
	case daily < 0 || peakRPS < 0:
		return refuse("--daily-requests and --peak-rps cannot be negative")
	case daily <= 0 && peakRPS <= 0:
		return refuse("give --daily-requests or --peak-rps")
	case daily > 0 && peakRPS > 0:
		return refuse("give --daily-requests or --peak-rps, not both (--peak-rps would silently override the daily volume)")
	case peakRPS > MaxRate:
		return refuse("--peak-rps %g is beyond %g req/s", peakRPS, float64(MaxRate))
	case daily > MaxRate*86400:
		return refuse("--daily-requests %g is beyond %g requests a day (%g req/s)", daily, MaxRate*86400, float64(MaxRate))
	case !finite(peakToAverage) || (peakRPS == 0 && peakToAverage < 1):
		return refuse("--peak-to-average %g is not a finite number of at least 1 (1: the peak is the daily average)", peakToAverage)
	}
	return CheckSizing(headroom, gpusPerReplica)
}

// CheckSizing refuses a headroom that is not a finite number ≥ 1 and a
// GPU count per replica outside [1, MaxGPUs].
func CheckSizing(headroom float64, gpusPerReplica int) error {
	switch {
	case !finite(headroom) || headroom < 1:
		return refuse("--headroom %g is not a finite number of at least 1", headroom)
	case gpusPerReplica < 1 || gpusPerReplica > MaxGPUs:
		return refuse("--gpus-per-replica %d is not in [1, %d]", gpusPerReplica, MaxGPUs)
	}
	return nil
}

// ErrRefused is wrapped by every refusal of NewPlan and the Check
// functions: a caller tells bad input (exit 2) from a failure.
var ErrRefused = errors.New("capacity plan")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, args...)...)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// NewPlan computes the plan from either the daily volume or the peak
// rate (both is an error): required rate = daily / 86,400 × peak-to-
// average (or the given peak), replicas = ceil(ceil(required / knee) ×
// headroom), GPUs = replicas × GPUs per replica. Every caller gets the
// same checks (CheckKnee, CheckDemand), and a result beyond MaxReplicas
// or MaxGPUs is refused: the arithmetic is done in floats so that it
// cannot wrap.
func NewPlan(knee, daily, peakRPS, peakToAverage, headroom float64, gpusPerReplica int) (*Plan, error) {
	if err := CheckKnee(knee); err != nil {
		return nil, err
	}
	if err := CheckDemand(daily, peakRPS, peakToAverage, headroom, gpusPerReplica); err != nil {
		return nil, err
	}
	p := &Plan{KneeRate: knee, Headroom: headroom, GPUsPerReplica: gpusPerReplica}
	if peakRPS > 0 {
		p.RequiredRate = peakRPS
	} else {
		p.DailyRequests, p.PeakToAverage = daily, peakToAverage
		p.RequiredRate = daily / 86400 * peakToAverage
	}
	base := math.Ceil(p.RequiredRate/knee - 1e-9)
	replicas := math.Ceil(base*headroom - 1e-9)
	gpus := replicas * float64(gpusPerReplica)
	if !finite(gpus) || replicas > MaxReplicas || gpus > MaxGPUs {
		return nil, refuse("%.4g req/s at %.4g req/s per replica × headroom %g needs %.4g replicas (%.4g GPUs), beyond %d replicas or %d GPUs: check the knee and the demand",
			p.RequiredRate, knee, headroom, replicas, gpus, MaxReplicas, MaxGPUs)
	}
	p.BaseReplicas, p.Replicas, p.GPUs = int(base), int(replicas), int(gpus)
	return p, nil
}

// WriteText prints the plan with its formula and every number it used.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintln(w, textfmt.Center(" Capacity plan ", '='))
	if p.DailyRequests > 0 {
		avg := p.DailyRequests / 86400
		daily, peak := "given", "--peak-to-average; 1: peak = average"
		if p.DailySource != "" {
			daily = p.DailySource
		}
		if p.PeakSource != "" {
			peak = p.PeakSource
		}
		fmt.Fprintf(w, "daily requests = %.0f (%s)\n", p.DailyRequests, daily)
		fmt.Fprintf(w, "average rate = daily requests / 86,400 = %.0f / 86,400 = %.3f req/s\n", p.DailyRequests, avg)
		fmt.Fprintf(w, "peak-to-average = %.4g (%s)\n", p.PeakToAverage, peak)
		fmt.Fprintf(w, "required rate = average × peak-to-average = %.3f × %.4g = %.3f req/s at peak\n", avg, p.PeakToAverage, p.RequiredRate)
	} else {
		fmt.Fprintf(w, "required rate = %.3f req/s at peak (given, --peak-rps)\n", p.RequiredRate)
	}
	fmt.Fprintf(w, "rate per replica (knee) = %.3f req/s\n", p.KneeRate)
	fmt.Fprintf(w, "headroom = %g (--headroom)\n", p.Headroom)
	fmt.Fprintf(w, "replicas = ceil(ceil(required / knee) × headroom)\n")
	fmt.Fprintf(w, "         = ceil(ceil(%.3f / %.3f) × %g) = ceil(%d × %g) = %d\n",
		p.RequiredRate, p.KneeRate, p.Headroom, p.BaseReplicas, p.Headroom, p.Replicas)
	// A measured rate just past a multiple of the knee (1.00004 / 0.25)
	// prints as the multiple: show the quotient the ceiling took.
	if r3 := func(f float64) float64 { return math.Round(f*1000) / 1000 }; int(math.Ceil(r3(p.RequiredRate)/r3(p.KneeRate)-1e-9)) != p.BaseReplicas {
		fmt.Fprintf(w, "         (required / knee = %.6f before rounding)\n", p.RequiredRate/p.KneeRate)
	}
	fmt.Fprintf(w, "GPUs = replicas × GPUs per replica = %d × %d = %d\n", p.Replicas, p.GPUsPerReplica, p.GPUs)
	fmt.Fprintf(w, "=> %d replicas, %d GPUs\n", p.Replicas, p.GPUs)
	fmt.Fprintln(w, "==================================================")
}
