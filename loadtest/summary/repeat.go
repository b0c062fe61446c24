package summary

import (
	"fmt"
	"math"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

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
	for _, m := range Metrics() {
		r := RunsRow{Key: m.Key, Unit: m.Unit, Values: []float64{}}
		var vs []float64
		for _, rep := range reps {
			v := reportValue(rep, m.Key)
			if math.IsNaN(v) {
				vs = nil
				break
			}
			vs = append(vs, v)
		}
		if len(vs) > 0 {
			r.Values = vs
			mean, _ := stats.MeanStd(vs)
			r.Mean = Num(mean)
		}
		if n := len(vs); n >= 2 {
			var ss float64
			for _, v := range vs {
				ss += (v - *r.Mean) * (v - *r.Mean)
			}
			sd := math.Sqrt(ss / float64(n-1))
			half := stats.TQuantile975(n-1) * sd / math.Sqrt(float64(n))
			r.Std, r.CILow, r.CIHigh = Num(sd), Num(*r.Mean-half), Num(*r.Mean+half)
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
		return Pct(rep.Failed, rep.Completed+rep.Failed)
	}
	stat, rest, _ := strings.Cut(key, "_")
	family := strings.TrimSuffix(rest, "_ms")
	st := map[string]stats.Stats{"ttft": rep.TTFT, "tpot": rep.TPOT, "itl": rep.ITL, "e2el": rep.E2EL}[family]
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
