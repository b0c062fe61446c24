package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

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

// Bootstrap sizes: exact resamples (counting draws, O(n) each) while
// resamples × sample size stays under bootstrapWork; past it, the ranks'
// normal approximation (O(1) each), which needs rankTail requests on
// either side of every order statistic read.
const (
	bootstrapWork = 40_000_000
	maxResamples  = 2000
	minResamples  = 200
	rankTail      = 50
)

// BootstrapQuantileDiffs resamples a and b (sorted ascending) with
// replacement and returns, per percentile, the interval of the
// difference of the resampled quantiles (numpy's linear method, as the
// report's). A resample's order statistics are read from counts of drawn
// indices into the sorted sample, so a resample costs O(n), not a sort;
// for large runs the rank of a resampled order statistic is drawn from
// its normal approximation instead (quantilesByRank). The seed is fixed:
// the same files compare the same way every time.
func BootstrapQuantileDiffs(a, b []float64, ps []float64, alpha float64) []QuantileDiff {
	out := make([]QuantileDiff, len(ps))
	for i, p := range ps {
		out[i] = QuantileDiff{P: p, Diff: QuantileSorted(b, p) - QuantileSorted(a, p), PValue: 1}
	}
	if len(a) == 0 || len(b) == 0 {
		return out
	}
	work := len(a) + len(b)
	byRank := work*maxResamples/4 > bootstrapWork && ranksNormal(len(a), ps) && ranksNormal(len(b), ps)
	nres := maxResamples
	if !byRank {
		nres = min(maxResamples, max(minResamples, bootstrapWork/work))
	}
	bootstrapDiffs(a, b, ps, alpha, nres, byRank, out)
	return out
}

// bootstrapDiffs fills out's intervals and p-values from nres resamples,
// exact or by rank.
func bootstrapDiffs(a, b []float64, ps []float64, alpha float64, nres int, byRank bool, out []QuantileDiff) {
	rng := rand.New(rand.NewPCG(24, 1))
	var ca, cb []int32
	if !byRank {
		ca, cb = make([]int32, len(a)), make([]int32, len(b))
	}
	resample := func(x []float64, counts []int32, q []float64) {
		if byRank {
			quantilesByRank(rng, x, ps, q)
		} else {
			resampleQuantiles(rng, x, counts, ps, q)
		}
	}
	diffs := make([][]float64, len(ps))
	qa, qb := make([]float64, len(ps)), make([]float64, len(ps))
	for range nres {
		resample(a, ca, qa)
		resample(b, cb, qb)
		for i := range ps {
			diffs[i] = append(diffs[i], qb[i]-qa[i])
		}
	}
	for i := range ps {
		d := diffs[i]
		slices.Sort(d)
		out[i].Lo = QuantileSorted(d, 100*alpha/2)
		out[i].Hi = QuantileSorted(d, 100*(1-alpha/2))
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
}

// resampleQuantiles draws len(x) indices into sorted x with replacement
// and writes the resample's percentiles ps to q; counts is scratch.
func resampleQuantiles(rng *rand.Rand, x []float64, counts []int32, ps []float64, q []float64) {
	clear(counts)
	n := len(x)
	for range n {
		counts[rng.IntN(n)]++
	}
	quantilesFromCounts(x, counts, ps, q)
}

// quantilesFromCounts writes to q the percentiles ps of the sample that
// holds counts[i] copies of x[i] (x sorted, the counts summing to len(x)).
func quantilesFromCounts(x []float64, counts []int32, ps []float64, q []float64) {
	n := len(x)
	// The order statistics each percentile needs (numpy's linear
	// method), read in one pass over the counts.
	type need struct {
		k    int // 0-based rank in the resample
		v    float64
		frac float64
	}
	needs := make([]need, 0, 2*len(ps))
	for _, p := range ps {
		pos := float64(n-1) * p / 100
		lo := int(math.Floor(pos))
		needs = append(needs, need{k: lo, frac: pos - float64(lo)}, need{k: min(lo+1, n-1)})
	}
	order := make([]int, len(needs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return needs[a].k - needs[b].k })
	cum, next := 0, 0
	for i, c := range counts {
		cum += int(c)
		for next < len(order) && needs[order[next]].k < cum {
			needs[order[next]].v = x[i]
			next++
		}
		if next == len(order) {
			break
		}
	}
	for i := range ps {
		lo, hi := needs[2*i], needs[2*i+1]
		q[i] = lo.v + (hi.v-lo.v)*lo.frac
	}
}

// ranksNormal reports whether every order statistic the percentiles ps
// read of n values has rankTail values on either side: where the
// Binomial count behind its resampled rank is near normal.
func ranksNormal(n int, ps []float64) bool {
	for _, p := range ps {
		k := int(math.Floor(float64(n-1) * p / 100))
		if k+1 < rankTail || n-k-1 < rankTail {
			return false
		}
	}
	return true
}

// quantilesByRank writes to q one resample's percentiles ps of sorted x,
// drawing each order statistic's rank instead of the resample: of n
// draws, the number at or below index j is Binomial(n, (j+1)/n), so the
// resample's k-th smallest sits at index k + Z·√((k+1)(n−k−1)/n),
// Z standard normal (one Z per percentile; the next order statistic,
// for the interpolation, is the next index).
func quantilesByRank(rng *rand.Rand, x []float64, ps, q []float64) {
	n := len(x)
	for i, p := range ps {
		pos := float64(n-1) * p / 100
		k := int(math.Floor(pos))
		sd := math.Sqrt(float64(k+1) * float64(n-k-1) / float64(n))
		j := min(max(int(math.Round(float64(k)+rng.NormFloat64()*sd)), 0), n-1)
		q[i] = x[j] + (x[min(j+1, n-1)]-x[j])*(pos-float64(k))
	}
}
