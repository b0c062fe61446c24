package loadtest

import (
	"fmt"
	"io"
	"math"
	"strings"
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

// RunsRow is one metric over repeated runs: its value in each, the mean,
// the sample standard deviation and the 95 % confidence interval of the
// mean, mean ± t(0.975, n−1)·s/√n.
type RunsRow struct {
	Key    string    `json:"key"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
	Mean   *float64  `json:"mean"`
	Std    *float64  `json:"std"`
	CILow  *float64  `json:"ci95_low"`
	CIHigh *float64  `json:"ci95_high"`
}

// RunsSummary is --num-runs' result.
type RunsSummary struct {
	Runs  int       `json:"num_runs"`
	Seeds []int64   `json:"seeds"`
	Rows  []RunsRow `json:"metrics"`
}

// SummarizeRuns gives every metric of `bench compare` (CompareKeys)
// across the runs' reports, made with seeds.
func SummarizeRuns(reps []*Report, seeds []int64) *RunsSummary {
	s := &RunsSummary{Runs: len(reps), Seeds: seeds}
	for _, m := range compareMetrics() {
		r := RunsRow{Key: m.key, Unit: m.unit, Values: []float64{}}
		var vs []float64
		for _, rep := range reps {
			v := reportValue(rep, m.key)
			if math.IsNaN(v) {
				vs = nil
				break
			}
			vs = append(vs, v)
		}
		if len(vs) > 0 {
			r.Values = vs
			mean, _ := meanStd(vs)
			r.Mean = num(mean)
		}
		if n := len(vs); n >= 2 {
			var ss float64
			for _, v := range vs {
				ss += (v - *r.Mean) * (v - *r.Mean)
			}
			sd := math.Sqrt(ss / float64(n-1))
			half := TQuantile975(n-1) * sd / math.Sqrt(float64(n))
			r.Std, r.CILow, r.CIHigh = num(sd), num(*r.Mean-half), num(*r.Mean+half)
		}
		s.Rows = append(s.Rows, r)
	}
	return s
}

// reportValue is metric key (CompareKeys) of rep, NaN where the run has
// none (a percentile not computed, goodput without SLOs).
func reportValue(rep *Report, key string) float64 {
	switch key {
	case "output_throughput":
		return rep.OutputThroughput
	case "request_throughput":
		return rep.RequestThroughput
	case "goodput":
		if !rep.SLO.Set() {
			return math.NaN()
		}
		return rep.GoodputPercent
	case "failed_percent":
		return pct(rep.Failed, rep.Completed+rep.Failed)
	}
	stat, rest, _ := strings.Cut(key, "_")
	family := strings.TrimSuffix(rest, "_ms")
	st := map[string]Stats{"ttft": rep.TTFT, "tpot": rep.TPOT, "itl": rep.ITL, "e2el": rep.E2EL}[family]
	if st.Count == 0 {
		return math.NaN()
	}
	if stat == "mean" {
		return st.Mean
	}
	var p float64
	if _, err := fmt.Sscanf(stat, "p%g", &p); err != nil {
		return math.NaN()
	}
	return st.Value(p)
}

// WriteText prints the summary: one line per metric.
func (s *RunsSummary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", center(fmt.Sprintf(" %d runs (seeds %s) ", s.Runs, seedList(s.Seeds)), '='))
	fmt.Fprintf(w, "%-26s %12s %10s  %s\n", "Metric", "Mean", "Std", "95% CI of the mean (Student t)")
	for _, r := range s.Rows {
		ci := "n/a"
		if r.CILow != nil {
			ci = fmt.Sprintf("[%.2f, %.2f]", *r.CILow, *r.CIHigh)
		}
		fmt.Fprintf(w, "%-26s %12s %10s  %s\n", r.Key+" ("+r.Unit+")", fmtNum(r.Mean), fmtNum(r.Std), ci)
	}
}

func seedList(seeds []int64) string {
	var parts []string
	for _, s := range seeds {
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, ", ")
}
