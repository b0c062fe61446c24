package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// KneeCI is an interval for the knee's offered rate: the rate where
// goodput crosses the target lies between the last passing and the first
// failing tested rate, so the interval spans that bracket, widened by
// each point's sampling error. Each bootstrap replicate redraws every
// open-loop point's good count (binomial) and finds its own bracket, as
// the sweep does: lo is the lower quantile of the replicates' last
// passing rate (0 when the lowest fails), hi the upper quantile of their
// first failing one (+Inf when none fails: a lower bound). A curve that
// passed again past its first failure (Rebound) stretches hi to the next
// failure above the rebound. ok is false
// without open-loop points.
func (s *Sweep) KneeCI() (lo, hi float64, ok bool) {
	var pts []*Point
	for _, p := range s.Points {
		if p.OpenLoop() && p.Report != nil {
			pts = append(pts, p)
		}
	}
	if len(pts) == 0 {
		return 0, 0, false
	}
	slices.SortStableFunc(pts, func(a, b *Point) int { return stats.CmpFloat(a.Rate, b.Rate) })
	rng := rand.New(rand.NewPCG(0x6b6e6565, uint64(len(pts))))
	lows := make([]float64, stats.BootstrapResamples)
	highs := make([]float64, stats.BootstrapResamples)
	for i := range lows {
		last, first := 0.0, math.Inf(1)
		for _, p := range pts {
			n := p.Report.Completed + p.Report.Failed
			good := stats.Binomial(rng, n, p.Report.GoodputPercent/100)
			if n == 0 || 100*float64(good)/float64(n) < s.KneeGoodput {
				first = p.Rate
				break
			}
			last = p.Rate
		}
		lows[i], highs[i] = last, first
	}
	slices.Sort(lows)
	slices.Sort(highs)
	a := (1 - stats.CILevel) / 2
	lo, hi = orderStat(lows, a), orderStat(highs, 1-a)
	if s.Rebound != nil {
		// Not monotone: the knee may lie past the rate that passed again.
		above := math.Inf(1)
		for _, p := range pts {
			if p.Rate > s.Rebound.Rate && !p.Good(s.KneeGoodput) {
				above = min(above, p.Rate)
			}
		}
		hi = max(hi, above)
	}
	return lo, hi, true
}

// orderStat is the q-quantile of sorted x as one of its values (no
// interpolation: x may hold +Inf).
func orderStat(x []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(x)))) - 1
	return x[min(max(i, 0), len(x)-1)]
}

// KneeCIText is the knee's interval as printed in the text, the HTML
// report and beside the JSON: what it spans and why.
func (s *Sweep) KneeCIText() string {
	lo, hi, ok := s.KneeCI()
	if !ok {
		return ""
	}
	level := stats.CILevel * 100
	switch {
	case math.IsInf(hi, 1) && s.FirstBad == nil:
		return fmt.Sprintf("Knee rate %.0f%% interval: above %.2f req/s offered, no upper bound (no tested rate failed)", level, lo)
	case math.IsInf(hi, 1) && s.Rebound != nil:
		return fmt.Sprintf("Knee rate %.0f%% interval: above %.2f req/s offered, no upper bound (a rate past the first failure passed again)", level, lo)
	case math.IsInf(hi, 1):
		return fmt.Sprintf("Knee rate %.0f%% interval: above %.2f req/s offered, no upper bound (the failing rates rest on too few requests to rule out a pass: raise --min-samples)", level, lo)
	}
	return fmt.Sprintf("Knee rate %.0f%% interval: %.2f–%.2f req/s offered (from the last passing to the first failing rate, widened by each point's sampling error)", level, lo, hi)
}
