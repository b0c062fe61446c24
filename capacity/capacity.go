package capacity

import (
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

// NewPlan computes the plan from either the daily volume or the peak
// rate (both is an error): required rate = daily / 86,400 × peak-to-
// average (or the given peak), replicas = ceil(ceil(required / knee) ×
// headroom), GPUs = replicas × GPUs per replica. A peak-to-average of 0
// means 1: the seed's formula (peak = daily / 86,400) unless a peak
// factor is given.
func NewPlan(knee, daily, peakRPS, peakToAverage, headroom float64, gpusPerReplica int) (*Plan, error) {
	switch {
	case knee <= 0:
		return nil, fmt.Errorf("capacity plan: the knee rate must be positive, got %g", knee)
	case daily < 0 || peakRPS < 0:
		return nil, fmt.Errorf("capacity plan: --daily-requests and --peak-rps cannot be negative")
	case daily <= 0 && peakRPS <= 0:
		return nil, fmt.Errorf("capacity plan: give --daily-requests or --peak-rps")
	case daily > 0 && peakRPS > 0:
		return nil, fmt.Errorf("capacity plan: give --daily-requests or --peak-rps, not both (--peak-rps would silently override the daily volume)")
	case headroom < 1:
		return nil, fmt.Errorf("capacity plan: --headroom %g is below 1", headroom)
	case gpusPerReplica < 1:
		return nil, fmt.Errorf("capacity plan: --gpus-per-replica must be at least 1")
	}
	p := &Plan{KneeRate: knee, Headroom: headroom, GPUsPerReplica: gpusPerReplica}
	if peakRPS > 0 {
		p.RequiredRate = peakRPS
	} else {
		if peakToAverage == 0 {
			peakToAverage = 1
		}
		if peakToAverage < 1 {
			return nil, fmt.Errorf("capacity plan: --peak-to-average %g is below 1", peakToAverage)
		}
		p.DailyRequests, p.PeakToAverage = daily, peakToAverage
		p.RequiredRate = daily / 86400 * peakToAverage
	}
	p.BaseReplicas = int(math.Ceil(p.RequiredRate/knee - 1e-9))
	p.Replicas = int(math.Ceil(float64(p.BaseReplicas)*headroom - 1e-9))
	p.GPUs = p.Replicas * gpusPerReplica
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
