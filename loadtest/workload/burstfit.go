package workload

import (
	"fmt"
	"math"
)

// Bounds of a burstiness fit. Below MinFitIntervals the variance of the
// Counts is too uncertain; below MinFitMean requests an interval the
// Counts are too small for the asymptotic relation the fit rests on. The
// shape is clamped to [MinShape, MaxShape]: beyond them the difference
// from the bound is within the fit's noise for any realistic window.
const (
	MinFitIntervals = 30
	MinFitMean      = 10.0
	MinShape        = 0.1
	MaxShape        = 10.0
)

// BurstFit is a gamma shape fitted to the request counts per interval.
//
// Why it works: for a renewal process whose gaps have mean μ and
// coefficient of variation c, the count N in an interval T ≫ μ has mean
// T/μ and variance c²·T/μ, so the index of dispersion Var N / E N tends
// to c². Gamma gaps of shape k have c² = 1/k: the shape is 1 over the
// index of dispersion (Poisson: 1).
//
// Traffic is not stationary (diurnal swings, trends) and a varying rate
// inflates the plain variance. The fit therefore uses the
// interval-to-interval differences: E(Nᵢ − Nᵢ₋₁)² = 2 Var N when the rate
// is locally constant, and a slow trend cancels. Its relative standard
// error is about √(3/n) for n differences (the squared differences of
// neighbours share a term), which gives Low and High.
type BurstFit struct {
	Shape float64 `json:"shape"` // 0: no fit (see Note)
	// Intervals is the number of interval-to-interval differences used.
	Intervals       int     `json:"intervals"`
	IntervalSeconds float64 `json:"interval_seconds"`
	MeanPerInterval float64 `json:"mean_per_interval"`
	// Dispersion is the detrended index of dispersion, 1/Shape before
	// clamping; RawDispersion the plain variance over mean.
	Dispersion    float64 `json:"dispersion"`
	RawDispersion float64 `json:"raw_dispersion"`
	Low           float64 `json:"shape_low,omitempty"` // about a 95% interval
	High          float64 `json:"shape_high,omitempty"`
	Clamped       bool    `json:"clamped,omitempty"`
	Note          string  `json:"note,omitempty"`
}

// FitBurstiness fits the gamma shape to counts per interval of seconds;
// NaN marks an interval without data (no difference spans it).
func FitBurstiness(counts []float64, seconds float64) BurstFit {
	f := BurstFit{IntervalSeconds: seconds}
	var sumN, sumN2, sumD2 float64
	var nN, nD int
	for i, c := range counts {
		if !finite(c) || c < 0 {
			continue
		}
		sumN += c
		sumN2 += c * c
		nN++
		if i > 0 && finite(counts[i-1]) && counts[i-1] >= 0 {
			d := c - counts[i-1]
			sumD2 += d * d
			nD++
		}
	}
	f.Intervals = nD
	if nN > 0 {
		f.MeanPerInterval = sumN / float64(nN)
	}
	mean := f.MeanPerInterval
	if nD < MinFitIntervals {
		f.Note = fmt.Sprintf("only %d intervals of traffic (a fit needs %d)", nD, MinFitIntervals)
		return f
	}
	if mean < MinFitMean {
		f.Note = fmt.Sprintf("too little traffic: %.1f requests per %gs interval (a fit needs %g)", mean, seconds, MinFitMean)
		return f
	}
	f.RawDispersion = (sumN2/float64(nN) - mean*mean) / mean
	f.Dispersion = sumD2 / (2 * float64(nD)) / mean
	se := math.Sqrt(3 / float64(nD))
	if f.Dispersion <= 0 {
		f.Shape, f.Clamped = MaxShape, true
	} else {
		f.Shape = 1 / f.Dispersion
		f.Low, f.High = f.Shape/(1+1.96*se), f.Shape/math.Max(1-1.96*se, 0.25)
	}
	if f.Shape < MinShape || f.Shape > MaxShape {
		f.Shape, f.Clamped = math.Min(math.Max(f.Shape, MinShape), MaxShape), true
	}
	if f.RawDispersion > 2*f.Dispersion && f.RawDispersion-f.Dispersion > 4*se*f.Dispersion {
		f.Note = fmt.Sprintf("the rate varied over the window (dispersion %.2f before detrending, %.2f after): fitted on interval-to-interval changes",
			f.RawDispersion, f.Dispersion)
	}
	return f
}

// Describe is one line on the fit.
func (f BurstFit) Describe() string {
	if f.Shape <= 0 {
		return "no fit: " + f.Note
	}
	s := fmt.Sprintf("gamma shape %.2f (about %.2f–%.2f; index of dispersion %.2f over %d intervals of %gs, %.1f requests each)",
		f.Shape, f.Low, f.High, f.Dispersion, f.Intervals, f.IntervalSeconds, f.MeanPerInterval)
	if f.Clamped {
		s += fmt.Sprintf(", clamped to [%g, %g]", MinShape, MaxShape)
	}
	if f.Note != "" {
		s += "; " + f.Note
	}
	return s
}
