package summary

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// RunsRow is one metric over repeated runs: its value in each, the mean,
// the sample standard deviation and the 95 % confidence interval of the
// mean, mean ± t(0.975, n−1)·s/√n, clipped to the metric's range (a
// share in [0, 100] %, anything else ≥ 0): the between-run interval, run
// to run variation included.
type RunsRow struct {
	Key    string    `json:"key"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
	Mean   *float64  `json:"mean"`
	Std    *float64  `json:"std"`
	CILow  *float64  `json:"ci95_low"`
	CIHigh *float64  `json:"ci95_high"`
	// Clipped: the t interval crossed the metric's range and was cut.
	Clipped bool `json:"ci95_clipped"`
	// Weak: under MinRunsForCI runs the interval rests on a guessed
	// spread (t with under 4 degrees of freedom): wide, and only as
	// good as the runs' values are near normal.
	Weak bool `json:"ci95_weak"`
}

// MinRunsForCI is the fewest runs whose between-run interval is not
// called weak.
const MinRunsForCI = 5

// RunsSummary is --num-runs' result. Workload holds the settings `bench
// compare` checks (as a single run's file has them); SendLagP99 is each
// run's p99 send lag in ms (open loop), for compare to show.
type RunsSummary struct {
	Runs       int               `json:"num_runs"`
	Seeds      []int64           `json:"seeds"`
	Rows       []RunsRow         `json:"metrics"`
	Workload   map[string]string `json:"workload,omitempty"`
	SendLagP99 []float64         `json:"send_lag_p99_ms,omitempty"`
}

// Bounds is the range metric m's values can take.
func (m Metric) Bounds() (lo, hi float64) {
	if m.Unit == "%" {
		return 0, 100
	}
	return 0, math.Inf(1)
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
			lo, hi := m.Bounds()
			cl, ch := max(*r.Mean-half, lo), min(*r.Mean+half, hi)
			r.Clipped = cl != *r.Mean-half || ch != *r.Mean+half
			r.Std, r.CILow, r.CIHigh, r.Weak = Num(sd), Num(cl), Num(ch), n < MinRunsForCI
		}
		s.Rows = append(s.Rows, r)
	}
	for _, rep := range reps {
		if rep.Lag.Count > 0 {
			s.SendLagP99 = append(s.SendLagP99, rep.Lag.Value(99))
		}
	}
	if len(reps) > 0 {
		s.Workload = map[string]string{}
		for _, kv := range reps[0].VLLMKeys() {
			if slices.Contains(WorkloadKeys, kv.Key) {
				s.Workload[kv.Key] = fmt.Sprint(kv.Value)
			}
		}
	}
	return s
}

// Weak reports whether any interval is weak (too few runs).
func (s *RunsSummary) Weak() bool { return s.Runs >= 2 && s.Runs < MinRunsForCI }

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
	st := map[string]stats.Stats{"ttft": rep.TTFT, "tpot": rep.TPOT, "itl": rep.ITL, "e2el": rep.E2EL, "max_itl": rep.MaxITL}[family]
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
