package stats

import (
	"cmp"
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

// Grouped is a time-ordered sample of requests, each with one or more
// values (a request's TTFT; its inter-token gaps), kept so that a
// resample of requests gives the pooled values' statistics in O(values).
type Grouped struct {
	vals  []float64 // every value, ascending
	group []int32   // the request of vals[i], in time order
	cnt   []int32   // values per request
	sum   []float64 // sum of values per request
}

// Add appends the next request (in time order) with its values.
func (g *Grouped) Add(vals ...float64) {
	id := int32(len(g.cnt))
	var s float64
	for _, v := range vals {
		g.vals = append(g.vals, v)
		g.group = append(g.group, id)
		s += v
	}
	g.cnt = append(g.cnt, int32(len(vals)))
	g.sum = append(g.sum, s)
}

// Requests is the number of requests added.
func (g *Grouped) Requests() int { return len(g.cnt) }

// Values is the number of values added.
func (g *Grouped) Values() int { return len(g.vals) }

// finish sorts the values (once, after the last Add).
func (g *Grouped) finish() {
	if slices.IsSorted(g.vals) {
		return
	}
	idx := make([]int, len(g.vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(g.vals[a], g.vals[b]) })
	vals, group := make([]float64, len(idx)), make([]int32, len(idx))
	for i, j := range idx {
		vals[i], group[i] = g.vals[j], g.group[j]
	}
	g.vals, g.group = vals, group
}

// GroupedOf is the Grouped sample of one value per request.
func GroupedOf(ordered []float64) *Grouped {
	g := &Grouped{}
	for _, v := range ordered {
		g.Add(v)
	}
	return g
}

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

// resample is one resample's weights: request i counted w[i] times,
// total values, their sum.
type resample struct {
	w     []int32
	total int64
	sum   float64
}

// weigh fills r's total and sum from its weights, in one pass.
func (g *Grouped) weigh(r *resample) {
	r.total, r.sum = 0, 0
	for i, c := range g.cnt {
		r.total += int64(r.w[i]) * int64(c)
		r.sum += float64(r.w[i]) * g.sum[i]
	}
}

// stat is the mean (p < 0) or percentile p (numpy's linear method) of
// the resample's pooled values.
func (g *Grouped) stat(r *resample, p float64) float64 {
	w, total := r.w, r.total
	if total == 0 {
		return math.NaN()
	}
	if p < 0 {
		return r.sum / float64(total)
	}
	pos := float64(total-1) * p / 100
	k := int64(math.Floor(pos))
	lo := g.rank(w, k, total)
	if k+1 >= total {
		return lo
	}
	return lo + (g.rank(w, k+1, total)-lo)*(pos-float64(k))
}

// rank is the k-th smallest (0-based) of total weighted values, scanned
// from the nearer end.
func (g *Grouped) rank(w []int32, k, total int64) float64 {
	if k < total/2 {
		var seen int64
		for i, v := range g.vals {
			if seen += int64(w[g.group[i]]); seen > k {
				return v
			}
		}
		return g.vals[len(g.vals)-1]
	}
	above := total - 1 - k // values strictly above the wanted one
	var seen int64
	for i := len(g.vals) - 1; i >= 0; i-- {
		if seen += int64(w[g.group[i]]); seen > above {
			return g.vals[i]
		}
	}
	return g.vals[0]
}

// Stat is the mean (p < 0) or percentile p of every value.
func (g *Grouped) Stat(p float64) float64 {
	g.finish()
	r := &resample{w: make([]int32, len(g.cnt))}
	for i := range r.w {
		r.w[i] = 1
	}
	g.weigh(r)
	return g.stat(r, p)
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
