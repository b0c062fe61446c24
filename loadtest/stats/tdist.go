package stats

import (
	"math"
)

// tQuantile975 holds Student's t 0.975 quantiles for 1–30 degrees of
// freedom (scipy.stats.t.ppf(0.975, df)); tLarge those for 40, 60 and
// 120; beyond 30 the quantile is interpolated in 1/df, as tables are read.
var (
	tQuantile975 = [...]float64{12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185, 2.36462425,
		2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283, 2.16036866, 2.14478669, 2.13144955, 2.11990530,
		2.10981558, 2.10092204, 2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856, 2.05953855,
		2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246}
	tLarge = []struct{ df, t float64 }{{30, 2.04227246}, {40, 2.02107539}, {60, 2.00029782}, {120, 1.97993040},
		{math.Inf(1), 1.95996398}}
)

// TQuantile975 is Student's t 0.975 quantile with df degrees of freedom:
// the half-width of a two-sided 95 % interval in standard errors.
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(tQuantile975) {
		return tQuantile975[df-1]
	}
	inv := 1 / float64(df)
	for i := 1; i < len(tLarge); i++ {
		lo, hi := tLarge[i-1], tLarge[i]
		if float64(df) <= hi.df {
			f := (1/lo.df - inv) / (1/lo.df - 1/hi.df)
			return lo.t + (hi.t-lo.t)*f
		}
	}
	return tLarge[len(tLarge)-1].t
}
