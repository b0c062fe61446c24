package stats

import (
	"cmp"
	"math"
	"slices"
)

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
