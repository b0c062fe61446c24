package loadtest

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Bootstrap confidence intervals. A percentile from a run is an estimate:
// its interval says how far another run of the same size could land. Both
// intervals here are percentile bootstraps over the per-request records,
// drawn exactly but without materialising resamples, so that they cost
// the same at a hundred requests as at a million.

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

// quantileCI is the percentile-bootstrap interval of the p-th percentile
// (numpy's linear method) of sorted. A resample of n records, sorted,
// holds at rank r the record of index floor(n·U(r)), U(r) the r-th
// smallest of n uniforms, which is Beta(r, n−r+1); the next rank's U is
// U(r) + (1−U(r))·Beta(1, n−r−1). One replicate is two Beta draws instead
// of n: exact, and O(1) in n.
func quantileCI(sorted []float64, p float64, seed uint64) (lo, hi float64) {
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
	return quantileSorted(reps, a), quantileSorted(reps, 100-a)
}

// beta draws from Beta(a, b) as Gamma(a) / (Gamma(a) + Gamma(b)).
func beta(rng *rand.Rand, a, b float64) float64 {
	x := gamma(rng, a)
	return x / (x + gamma(rng, b))
}

// binomial draws the number of successes in n trials of probability p:
// exactly for small n, else the rarer outcome from a Poisson (when it is
// rare) or a normal approximation.
func binomial(rng *rand.Rand, n int, p float64) int {
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

// KneeCI is the percentile-bootstrap interval of the knee's offered rate:
// each replicate resamples every open-loop point's requests (its good
// count is binomial) and takes the highest rate that passes below the
// first that fails, as the sweep does; a replicate with no passing rate
// counts as 0. ok is false without open-loop points.
func (s *Sweep) KneeCI() (lo, hi float64, ok bool) {
	var pts []*Point
	for _, p := range s.Points {
		if (p.Kind == PointRate || p.Kind == PointRefine) && p.Report != nil {
			pts = append(pts, p)
		}
	}
	if len(pts) == 0 {
		return 0, 0, false
	}
	slices.SortStableFunc(pts, func(a, b *Point) int { return cmpFloat(a.Rate, b.Rate) })
	rng := rand.New(rand.NewPCG(0x6b6e6565, uint64(len(pts))))
	reps := make([]float64, BootstrapResamples)
	for i := range reps {
		knee := 0.0
		for _, p := range pts {
			n := p.Report.Completed + p.Report.Failed
			good := binomial(rng, n, p.Report.GoodputPercent/100)
			if n == 0 || 100*float64(good)/float64(n) < s.KneeGoodput {
				break
			}
			knee = p.Rate
		}
		reps[i] = knee
	}
	slices.Sort(reps)
	a := (1 - CILevel) / 2 * 100
	return quantileSorted(reps, a), quantileSorted(reps, 100-a), true
}

// SampleWarnings names the percentiles of TTFT, TPOT and E2EL reported
// (p99 always: the knee and the verdict read it) that rest on too few
// samples to be more than the maximum (p99 under 100), one line for the
// metrics that share a sample count.
func (rep *Report) SampleWarnings() []string {
	type group struct {
		metrics, ps, need []string
		n                 int
	}
	var out []*group
	byKey := map[string]*group{}
	for _, m := range []struct {
		name string
		s    Stats
	}{{"TTFT", rep.TTFT}, {"TPOT", rep.TPOT}, {"E2EL", rep.E2EL}} {
		var ps, need []string
		all := append(slices.Clone(m.s.Percentiles), m.s.internal...)
		slices.SortFunc(all, func(a, b Percentile) int { return cmpFloat(a.P, b.P) })
		for _, p := range all {
			if n := MinSamplesFor(p.P); m.s.Count > 0 && m.s.Count < n {
				ps = append(ps, "p"+PercentileName(p.P))
				need = append(need, fmt.Sprintf("p%s needs %d", PercentileName(p.P), n))
			}
		}
		if len(ps) == 0 {
			continue
		}
		key := fmt.Sprint(m.s.Count, ps)
		if g := byKey[key]; g != nil {
			g.metrics = append(g.metrics, m.name)
			continue
		}
		g := &group{metrics: []string{m.name}, ps: ps, need: need, n: m.s.Count}
		byKey[key] = g
		out = append(out, g)
	}
	lines := make([]string, 0, len(out))
	for _, g := range out {
		lines = append(lines, fmt.Sprintf("%s %s rest on %d samples (%s; below that a percentile is the maximum)",
			strings.Join(g.ps, ", "), strings.Join(g.metrics, ", "), g.n, strings.Join(g.need, ", ")))
	}
	return lines
}

// ciText is a p99 interval as "lo–hi", or n/a under two samples.
func ciText(st Stats) string {
	if math.IsNaN(st.P99Low) || st.Count < 2 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f–%.1f", st.P99Low, st.P99High)
}

// WriteUncertainty prints a single run's p99 intervals and its sample
// warnings, under the report.
func (rep *Report) WriteUncertainty(w io.Writer) {
	fmt.Fprintf(w, "p99 %.0f%% CI (ms, bootstrap): TTFT %s, TPOT %s, E2EL %s (%d requests)\n", CILevel*100,
		ciText(rep.TTFT), ciText(rep.TPOT), ciText(rep.E2EL), rep.Completed+rep.Failed)
	for _, m := range rep.SampleWarnings() {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
}
