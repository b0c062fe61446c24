package loadtest

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// Significance tests for `bench compare`: is a difference between two
// runs more than the noise of their requests?

// normSF is the standard normal's survival function, P(Z > z).
func normSF(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// MannWhitney is the two-sided Mann–Whitney U test of a and b with the
// normal approximation, tie correction and continuity correction
// (scipy.stats.mannwhitneyu(a, b, method="asymptotic")): u is a's U
// statistic, p the two-sided p-value. p is 1 when either sample is empty
// or every value is equal.
func MannWhitney(a, b []float64) (u, p float64) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	type obs struct {
		v     float64
		fromA bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int { return cmp.Compare(x.v, y.v) })
	// Average ranks over ties; tie term Σ(t³ − t).
	var rankA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].fromA {
				rankA += rank
			}
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	f1, f2, n := float64(n1), float64(n2), float64(n1+n2)
	u = rankA - f1*(f1+1)/2
	mu := f1 * f2 / 2
	sigma := math.Sqrt(f1 * f2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 || math.IsNaN(sigma) {
		return u, 1
	}
	z := (math.Max(u, f1*f2-u) - mu - 0.5) / sigma
	return u, math.Min(1, 2*normSF(z))
}

// TwoProportion is the two-sided z-test (pooled variance) of k1 of n1
// against k2 of n2. p is 1 when there is nothing to test: an empty
// sample, or both all-in or all-out.
func TwoProportion(k1, n1, k2, n2 int) (z, p float64) {
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	p1, p2 := float64(k1)/float64(n1), float64(k2)/float64(n2)
	pool := float64(k1+k2) / float64(n1+n2)
	se := math.Sqrt(pool * (1 - pool) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 0, 1
	}
	z = (p2 - p1) / se
	return z, math.Min(1, 2*normSF(math.Abs(z)))
}

// QuantileDiff is a bootstrap estimate of quantile(b) − quantile(a).
type QuantileDiff struct {
	P      float64 // percentile, 0..100
	Diff   float64 // on the samples themselves
	Lo, Hi float64 // the (1 − alpha) percentile interval of the resampled differences
	// PValue is twice the share of resampled differences on the far side
	// of 0, within [1/resamples, 1]: small when the interval is far from 0.
	PValue float64
}

// bootstrapResamples bounds the work of one bootstrap (resamples times
// sample size); at least minResamples are drawn however large the runs.
const (
	bootstrapWork = 200_000_000
	maxResamples  = 2000
	minResamples  = 200
)

// BootstrapQuantileDiffs resamples a and b (sorted ascending) with
// replacement and returns, per percentile, the interval of the
// difference of the resampled quantiles (numpy's linear method, as the
// report's). A resample's order statistics are read from counts of drawn
// indices into the sorted sample, so a resample costs O(n), not a sort.
// The seed is fixed: the same files compare the same way every time.
func BootstrapQuantileDiffs(a, b []float64, ps []float64, alpha float64) []QuantileDiff {
	out := make([]QuantileDiff, len(ps))
	for i, p := range ps {
		out[i] = QuantileDiff{P: p, Diff: quantileSorted(b, p) - quantileSorted(a, p), PValue: 1}
	}
	if len(a) == 0 || len(b) == 0 {
		return out
	}
	nres := min(maxResamples, max(minResamples, bootstrapWork/(len(a)+len(b))))
	rng := rand.New(rand.NewPCG(24, 1))
	diffs := make([][]float64, len(ps))
	ca, cb := make([]int32, len(a)), make([]int32, len(b))
	qa, qb := make([]float64, len(ps)), make([]float64, len(ps))
	for range nres {
		resampleQuantiles(rng, a, ca, ps, qa)
		resampleQuantiles(rng, b, cb, ps, qb)
		for i := range ps {
			diffs[i] = append(diffs[i], qb[i]-qa[i])
		}
	}
	for i := range ps {
		d := diffs[i]
		slices.Sort(d)
		out[i].Lo = quantileSorted(d, 100*alpha/2)
		out[i].Hi = quantileSorted(d, 100*(1-alpha/2))
		below, above := 0, 0
		for _, v := range d {
			if v <= 0 {
				below++
			}
			if v >= 0 {
				above++
			}
		}
		// At least 1/resamples: the resolution of this many resamples.
		out[i].PValue = math.Min(1, float64(max(2*min(below, above), 1))/float64(len(d)))
	}
	return out
}

// resampleQuantiles draws len(x) indices into sorted x with replacement
// and writes the resample's percentiles ps to q; counts is scratch.
func resampleQuantiles(rng *rand.Rand, x []float64, counts []int32, ps []float64, q []float64) {
	clear(counts)
	n := len(x)
	for range n {
		counts[rng.IntN(n)]++
	}
	// orderStat returns the k-th smallest (0-based) of the resample.
	orderStat := func(k int) float64 {
		cum := 0
		for i, c := range counts {
			cum += int(c)
			if cum > k {
				return x[i]
			}
		}
		return x[n-1]
	}
	for i, p := range ps {
		pos := float64(n-1) * p / 100
		lo := int(math.Floor(pos))
		v := orderStat(lo)
		if lo < n-1 {
			v += (orderStat(lo+1) - v) * (pos - float64(lo))
		}
		q[i] = v
	}
}
