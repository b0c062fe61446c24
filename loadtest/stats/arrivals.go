package stats

import (
	"math"
	"math/rand/v2"
	"time"
)

// arrivals generates the open-loop send schedule like vllm bench serve:
// gaps drawn from a gamma distribution with shape = burstiness and mean
// 1/rate (burstiness 1 is a Poisson process; lower is burstier, higher
// more regular). An infinite rate sends everything at once.
type arrivals struct {
	rate, shape float64
	rng         *rand.Rand
	at          time.Duration
	// RateAt, if set, is request i's rate (a ramp); the gap before
	// request i is drawn at it.
	RateAt func(i int) float64
	i      int
}

// NewArrivals starts a schedule; burstiness 0 (unset) means 1, and
// Options.check rejects a negative one before it gets here.
func NewArrivals(rate, burstiness float64, seed int64) *arrivals {
	if burstiness == 0 {
		burstiness = 1
	}
	return &arrivals{rate: rate, shape: burstiness, rng: rand.New(rand.NewPCG(uint64(seed), 0x617272697661))}
}

// Next returns the planned send time of the next request, from the start.
func (a *arrivals) Next() time.Duration {
	t := a.at
	a.i++
	rate := a.rate
	if a.RateAt != nil {
		rate = a.RateAt(a.i)
	}
	if !math.IsInf(rate, 1) && rate > 0 {
		gap := Gamma(a.rng, a.shape) / (a.shape * rate)
		a.at += time.Duration(gap * float64(time.Second))
	}
	return t
}

// Gamma draws from Gamma(shape, 1) (Marsaglia and Tsang; shape < 1 by
// boosting with U^(1/shape)).
func Gamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		return Gamma(rng, shape+1) * math.Pow(u, 1/shape)
	}
	if shape == 1 {
		return rng.ExpFloat64()
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
