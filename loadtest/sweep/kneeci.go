package sweep

import (
	"math/rand/v2"
	"slices"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// KneeCI is the percentile-bootstrap interval of the knee's offered rate:
// each replicate resamples every open-loop point's requests (its good
// count is binomial) and takes the highest rate that passes below the
// first that fails, as the sweep does; a replicate with no passing rate
// Counts as 0. ok is false without open-loop points.
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
	slices.SortStableFunc(pts, func(a, b *Point) int { return stats.CmpFloat(a.Rate, b.Rate) })
	rng := rand.New(rand.NewPCG(0x6b6e6565, uint64(len(pts))))
	reps := make([]float64, stats.BootstrapResamples)
	for i := range reps {
		knee := 0.0
		for _, p := range pts {
			n := p.Report.Completed + p.Report.Failed
			good := stats.Binomial(rng, n, p.Report.GoodputPercent/100)
			if n == 0 || 100*float64(good)/float64(n) < s.KneeGoodput {
				break
			}
			knee = p.Rate
		}
		reps[i] = knee
	}
	slices.Sort(reps)
	a := (1 - stats.CILevel) / 2 * 100
	return stats.QuantileSorted(reps, a), stats.QuantileSorted(reps, 100-a), true
}
