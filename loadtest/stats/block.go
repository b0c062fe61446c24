package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Requests close in time share the server's and the host's state (a
// queue, a load episode), so they are not independent: resampling them
// one by one understates the noise. The block bootstrap resamples runs
// of consecutive requests instead, which keeps that correlation within a
// block. Blocks are ⌈√n⌉ requests long (the usual order for a quantile's
// block bootstrap) and wrap around the end (circular), so every request
// is drawn equally often.

// BlockLen is the block length for n time-ordered requests: ⌈√n⌉.
func BlockLen(n int) int {
	return max(1, int(math.Ceil(math.Sqrt(float64(n)))))
}

// blockWork caps resamples × values per interval; the resamples are
// between minResamples and maxResamples.
const blockWork = 20_000_000

// drawBlocks sets w to one circular block resample's draw counts per request.
func drawBlocks(rng *rand.Rand, w []int32) {
	clear(w)
	n := len(w)
	l := BlockLen(n)
	for left := n; left > 0; left -= l {
		s := rng.IntN(n)
		k := min(l, left)
		for i := s; i < min(s+k, n); i++ {
			w[i]++
		}
		for i := range s + k - n { // the block wraps past the end
			w[i]++
		}
	}
}

// resamples is how many block resamples an interval over values gets,
// at most most.
func resamples(values, most int) int {
	return min(most, max(minResamples, blockWork/max(values, 1)))
}

// diffResamples caps a comparison's resamples: a test at alpha 0.05
// needs its tail, not the 2,000 an interval's endpoints get.
const diffResamples = 1000

// BlockQuantileCI is the 95 % block-bootstrap interval of percentile p
// of ordered, one value per request in time order: the sampling error
// of this run's p-th percentile, with neighbouring requests correlated.
// It says nothing of another run (the host, the server's state, the
// prompts drawn): only repeated runs measure that.
func BlockQuantileCI(ordered []float64, p float64, seed uint64) (lo, hi float64) {
	if len(ordered) < 2 {
		return math.NaN(), math.NaN()
	}
	g := GroupedOf(ordered)
	g.finish()
	rng := rand.New(rand.NewPCG(seed, uint64(len(ordered))))
	r := &resample{w: make([]int32, len(g.cnt))}
	reps := make([]float64, resamples(len(g.vals), maxResamples))
	for i := range reps {
		drawBlocks(rng, r.w)
		r.total = int64(len(r.w)) // one value per request; the mean is not asked
		reps[i] = g.stat(r, p)
	}
	slices.Sort(reps)
	a := (1 - CILevel) / 2 * 100
	return QuantileSorted(reps, a), QuantileSorted(reps, 100-a)
}

// BlockDiffs compares b against a (each a Grouped sample in time order)
// by block bootstrap: per statistic (ps: percentiles; a negative entry
// is the mean), the difference b − a on the samples, its interval at
// 1 − alpha and a two-sided p-value. The seed is fixed: the same inputs
// compare the same way every time.
func BlockDiffs(a, b *Grouped, ps []float64, alpha float64) []QuantileDiff {
	a.finish()
	b.finish()
	out := make([]QuantileDiff, len(ps))
	for i, p := range ps {
		out[i] = QuantileDiff{P: p, Diff: b.Stat(p) - a.Stat(p), PValue: 1, Lo: math.NaN(), Hi: math.NaN()}
	}
	if a.Requests() < 2 || b.Requests() < 2 {
		return out
	}
	rng := rand.New(rand.NewPCG(31, 3))
	ra, rb := &resample{w: make([]int32, a.Requests())}, &resample{w: make([]int32, b.Requests())}
	diffs := make([][]float64, len(ps))
	for range resamples(a.Values()+b.Values(), diffResamples) {
		drawBlocks(rng, ra.w)
		drawBlocks(rng, rb.w)
		a.weigh(ra)
		b.weigh(rb)
		for i, p := range ps {
			if d := b.stat(rb, p) - a.stat(ra, p); !math.IsNaN(d) {
				diffs[i] = append(diffs[i], d)
			}
		}
	}
	for i := range ps {
		fillInterval(&out[i], diffs[i], alpha)
	}
	return out
}

// fillInterval sets q's percentile interval and p-value from the
// resampled differences d.
func fillInterval(q *QuantileDiff, d []float64, alpha float64) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	q.Lo = QuantileSorted(d, 100*alpha/2)
	q.Hi = QuantileSorted(d, 100*(1-alpha/2))
	below, above := 0, 0
	for _, v := range d {
		if v <= 0 {
			below++
		}
		if v >= 0 {
			above++
		}
	}
	q.PValue = math.Min(1, float64(max(2*min(below, above), 1))/float64(len(d)))
}
