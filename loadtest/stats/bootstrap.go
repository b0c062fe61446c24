package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapResamples is the number of bootstrap resamples.
const BootstrapResamples = 2000

// CILevel is the confidence of the reported intervals.
const CILevel = 0.95

// MinSamplesFor is the fewest samples for which percentile p is not just
// the maximum: at least one sample lies beyond it (p99: 100).
func MinSamplesFor(p float64) int {
	if p >= 100 {
		return math.MaxInt
	}
	return int(math.Ceil(100/(100-p) - 1e-9))
}

// QuantileCI is the percentile-bootstrap interval of the p-th percentile
// (numpy's linear method) of sorted. A resample of n records, sorted,
// holds at rank r the record of index floor(n·U(r)), U(r) the r-th
// smallest of n uniforms, which is Beta(r, n−r+1); the next rank's U is
// U(r) + (1−U(r))·Beta(1, n−r−1). One replicate is two Beta draws instead
// of n: exact, and O(1) in n.
func QuantileCI(sorted []float64, p float64, seed uint64) (lo, hi float64) {
	n := len(sorted)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	pos := float64(n-1) * p / 100
	r := int(math.Floor(pos)) // 0-based rank
	frac := pos - float64(r)
	at := func(u float64) float64 { return sorted[min(int(u*float64(n)), n-1)] }
	reps := make([]float64, BootstrapResamples)
	for i := range reps {
		u := beta(rng, float64(r+1), float64(n-r))
		v := at(u)
		if frac > 0 && r+1 < n {
			u2 := u + (1-u)*beta(rng, 1, float64(n-r-1))
			v += (at(u2) - v) * frac
		}
		reps[i] = v
	}
	slices.Sort(reps)
	a := (1 - CILevel) / 2 * 100
	return QuantileSorted(reps, a), QuantileSorted(reps, 100-a)
}

// beta draws from Beta(a, b) as Gamma(a) / (Gamma(a) + Gamma(b)).
func beta(rng *rand.Rand, a, b float64) float64 {
	x := Gamma(rng, a)
	return x / (x + Gamma(rng, b))
}

// Binomial draws the number of successes in n trials of probability p:
// exactly for small n, else the rarer outcome from a Poisson (when it is
// rare) or a normal approximation.
func Binomial(rng *rand.Rand, n int, p float64) int {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return n
	case n <= 1000:
		k := 0
		for range n {
			if rng.Float64() < p {
				k++
			}
		}
		return k
	}
	if q := min(p, 1-p); float64(n)*q < 30 {
		k := poisson(rng, float64(n)*q)
		if p > 0.5 {
			k = n - k
		}
		return max(0, min(n, k))
	}
	mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
	return max(0, min(n, int(math.Round(mean+sd*rng.NormFloat64()))))
}

// poisson draws from Poisson(lambda) by Knuth's product of uniforms
// (lambda < 30 here).
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, prod := math.Exp(-lambda), 0, rng.Float64()
	for prod > l {
		k++
		prod *= rng.Float64()
	}
	return k
}
