package stats

import (
	"math"
	"slices"
)

// Requests close in time share the server's and the host's state (a
// queue, a load episode), so they are not independent. A single run's
// intervals and comparisons therefore estimate each statistic's variance
// by batch means: the run's requests, in time order, are cut into
// Batches batches of neighbours, far apart batches are close to
// independent, and the spread of the batch totals measures the noise
// with its correlation (Student's t on batches − 1 degrees of freedom).
//
// A percentile's interval is the order-statistic (binomial) interval at
// the run's effective sample size: the values θ whose share at or below
// them does not differ from p significantly, the share's variance p(1−p)
// per value times the inflation batch means measure at θ and at the
// estimate (a score test inverted, as Woodruff's interval inverts the
// empirical CDF). A percentile bootstrap, even by blocks, undercovers
// tail percentiles of correlated requests (86.7 % for a nominal 95 % in
// docs/performance.md's simulation): a p99 of 1,000 requests rests on a
// handful of load episodes, which resampling cannot vary enough.

// Batches is how many batches a run's requests are cut into. Few and
// long: a batch must be longer than a load episode's reach, or batch
// means understate the noise; the t quantile on Batches − 1 degrees of
// freedom pays for the few (the simulation behind docs/performance.md
// undercovered with 10 or more batches, or batches of ⌈√n⌉ requests, at
// 400 to 1,000 requests).
const Batches = 6

// BatchLen is the batch length for n time-ordered requests: ⌈n / Batches⌉.
func BatchLen(n int) int {
	return max(1, (n+Batches-1)/Batches)
}

// Estimate is a statistic of one run with its batch-means standard
// error and the degrees of freedom of that error.
type Estimate struct {
	Value, SE float64
	DF        int
	// Lo, Hi: the interval at the level asked for (a percentile's is
	// the inverted test's, asymmetric, Hi +Inf where the run's largest
	// value is no bound; the mean's Value ± t·SE).
	Lo, Hi float64
}

// batchVar is the batch-means estimate of Var(Σ z) for z, one value per
// request in time order, and its degrees of freedom (batches − 1).
func batchVar(z []float64) (v float64, df int) {
	n := len(z)
	if n < 4 {
		return math.NaN(), 0
	}
	k := min(Batches, n/2)
	tot := make([]float64, k)
	for j := range k {
		for _, x := range z[j*n/k : (j+1)*n/k] {
			tot[j] += x
		}
	}
	var mean float64
	for _, t := range tot {
		mean += t
	}
	mean /= float64(k)
	for _, t := range tot {
		v += (t - mean) * (t - mean)
	}
	return v * float64(k) / float64(k-1), k - 1
}

// atOrBelow is, per request, the number of its values at or below q.
func (g *Grouped) atOrBelow(q float64) []float64 {
	c := make([]float64, len(g.cnt))
	for i, v := range g.vals {
		if v > q {
			break
		}
		c[g.group[i]]++
	}
	return c
}

// BatchEstimate is the mean (p < 0) or percentile p of g's values with
// its batch-means error and interval at level (0.95: 95 %). Under four
// requests the error and interval are NaN.
func (g *Grouped) BatchEstimate(p, level float64) Estimate {
	g.finish()
	e := Estimate{Value: g.Stat(p), SE: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	n, total := len(g.cnt), float64(len(g.vals))
	if n < 4 || total == 0 {
		return e
	}
	z := make([]float64, n)
	if p < 0 {
		for i := range z { // linearised ratio: Σ z = 0
			z[i] = g.sum[i] - e.Value*float64(g.cnt[i])
		}
		v, df := batchVar(z)
		e.SE, e.DF = math.Sqrt(v)/total, df
		half := TQuantile(1-(1-level)/2, float64(df)) * e.SE
		e.Lo, e.Hi = e.Value-half, e.Value+half
		return e
	}
	q := p / 100
	infl, df := g.inflation(e.Value)
	t := TQuantile(1-(1-level)/2, float64(df))
	e.DF = df
	e.Lo, e.Hi = g.invert(q, level, t, infl)
	seF := math.Sqrt(infl * q * (1 - q) / total)
	// The percentile's own error: the CDF's, times the slope of the
	// quantile function over a span of one such error around q.
	h := math.Min(seF, math.Min(q, 1-q))
	e.SE = 0
	if h > 0 {
		e.SE = (g.at(q+h) - g.at(q-h)) / (2 * h) * seF
	}
	return e
}

// inflation is how many times the variance of the empirical CDF at x
// exceeds independent values' (batch means over binomial; at least 1),
// with the batches' degrees of freedom: N / inflation is the run's
// effective sample size at x.
func (g *Grouped) inflation(x float64) (infl float64, df int) {
	c := g.atOrBelow(x)
	total := float64(len(g.vals))
	var f float64
	for _, v := range c {
		f += v
	}
	f /= total
	for i := range c {
		c[i] -= f * float64(g.cnt[i])
	}
	v, df := batchVar(c)
	if f <= 0 || f >= 1 || df < 1 {
		return 1, df
	}
	return math.Max(1, v/(total*f*(1-f))), df
}

// cdfAt is the share of g's values at or below x.
func (g *Grouped) cdfAt(x float64) float64 {
	k, _ := slices.BinarySearchFunc(g.vals, x, func(v, x float64) int {
		if v <= x {
			return -1
		}
		return 1
	})
	return float64(k) / float64(len(g.vals))
}

// invert is the interval of the q-quantile by inverting the test of
// F(θ) = q: the values θ where |F̂(θ) − q| ≤ t·se(θ), se(θ)² = q(1−q)/N
// times the larger inflation, at θ or at the estimate (taken at the
// estimate alone, as Woodruff's interval does, it understates the noise
// where a run's tail is all one load episode, or none). The ends
// are found by bisection over the sorted values; the upper end is +Inf
// when even the largest value is not rejected: the run's maximum is no
// bound on another run's tail.
func (g *Grouped) invert(q, level, t, infl float64) (lo, hi float64) {
	total := float64(len(g.vals))
	z := math.Sqrt2 * math.Erfinv(level) // the normal quantile 1 − (1 − level)/2
	accept := func(i int) bool {
		x := g.vals[i]
		k, _ := g.inflation(x)
		k = math.Max(k, infl)
		// Where no correlation shows, the error is the binomial's,
		// known rather than estimated: the normal quantile, not t's.
		crit := t
		if k <= 1 {
			crit = z
		}
		return math.Abs(g.cdfAt(x)-q) <= crit*math.Sqrt(k*q*(1-q)/total)
	}
	last := len(g.vals) - 1
	mid := min(last, int(q*float64(last)))
	// lo: the first accepted value at or below the estimate's rank.
	a, b := 0, mid
	if accept(0) {
		lo = math.Inf(-1)
	} else {
		for b-a > 1 { // accept(b), !accept(a)
			m := (a + b) / 2
			if accept(m) {
				b = m
			} else {
				a = m
			}
		}
		lo = g.vals[b]
	}
	a, b = mid, last
	if accept(last) {
		return lo, math.Inf(1)
	}
	for b-a > 1 { // accept(a), !accept(b)
		m := (a + b) / 2
		if accept(m) {
			a = m
		} else {
			b = m
		}
	}
	return lo, g.vals[a]
}

// at is the quantile of g's values at probability q, clamped to [0, 1].
func (g *Grouped) at(q float64) float64 {
	return QuantileSorted(g.vals, 100*math.Min(1, math.Max(0, q)))
}

// BatchDiffs compares b against a (each a Grouped sample in time order):
// per statistic (ps: percentiles; a negative entry is the mean), the
// difference b − a, its interval at 1 − alpha and a two-sided p-value.
// The mean's from the two batch-means errors (Welch–Satterthwaite
// degrees of freedom); a percentile's from the two runs' intervals at
// 1 − alpha by MOVER, so an unbounded end (a tail too few effective
// requests pin down) leaves the difference unbounded: not significant.
// The p-value reads the half of the interval towards 0 as t · error.
func BatchDiffs(a, b *Grouped, ps []float64, alpha float64) []QuantileDiff {
	out := make([]QuantileDiff, len(ps))
	for i, p := range ps {
		ea, eb := a.BatchEstimate(p, 1-alpha), b.BatchEstimate(p, 1-alpha)
		q := &out[i]
		*q = QuantileDiff{P: p, Diff: eb.Value - ea.Value, PValue: 1, Lo: math.NaN(), Hi: math.NaN()}
		if math.IsNaN(ea.SE) || math.IsNaN(eb.SE) {
			continue
		}
		if p < 0 {
			welchLike(q, ea, eb, alpha)
			continue
		}
		// MOVER (Zou and Donner 2008): each end of the difference from
		// the ends of the two intervals that move it that way. A
		// standard error alone (Price and Bonett's for medians) missed
		// the skew of a tail percentile's error: its p99 gates
		// exceeded alpha in the simulation.
		down := math.Hypot(eb.Value-eb.Lo, ea.Hi-ea.Value)
		up := math.Hypot(eb.Hi-eb.Value, ea.Value-ea.Lo)
		q.Lo, q.Hi = q.Diff-down, q.Diff+up
		half := up
		if q.Diff > 0 {
			half = down
		}
		t := TQuantile(1-alpha/2, float64(min(ea.DF, eb.DF)))
		switch {
		case math.IsInf(half, 1):
		case half == 0:
			q.PValue = 0
		default:
			q.PValue = math.Min(1, 2*TSF(math.Abs(q.Diff)/(half/t), float64(min(ea.DF, eb.DF))))
		}
	}
	return out
}

// welchLike fills q from the two estimates' standard errors, with
// Welch–Satterthwaite degrees of freedom.
func welchLike(q *QuantileDiff, ea, eb Estimate, alpha float64) {
	va, vb := ea.SE*ea.SE, eb.SE*eb.SE
	se := math.Sqrt(va + vb)
	if se == 0 {
		q.Lo, q.Hi = q.Diff, q.Diff
		if q.Diff != 0 {
			q.PValue = 0
		}
		return
	}
	df := (va + vb) * (va + vb) / (va*va/float64(ea.DF) + vb*vb/float64(eb.DF))
	q.PValue = 2 * TSF(math.Abs(q.Diff)/se, df)
	half := TQuantile(1-alpha/2, df) * se
	q.Lo, q.Hi = q.Diff-half, q.Diff+half
}
