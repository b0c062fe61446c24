package summary

import (
	"math"
)

// Metric is one row of `bench compare`.
type Metric struct {
	Key, Unit   string
	HigherWorse bool
}

// CompareFamilies are the latency metrics compared, with the statistics
// shown of each.
var (
	CompareFamilies = []string{"ttft", "tpot", "itl", "e2el", "max_itl"}
	CompareStats    = []string{"mean", "p50", "p90", "p99"}
)

// WorkloadKeys are the settings two runs must share to be compared:
// what is sent (prompt and output lengths, dataset), where (endpoint),
// how (load), and what counts as good.
var WorkloadKeys = []string{"llm_prober_workload", "backend", "llm_prober_mode", "request_rate", "burstiness",
	"max_concurrency", "llm_prober_goodput_slo"}

// Metrics lists every row in order: latencies, then throughput,
// SLO attainment (keyed goodput) and the failure share.
func Metrics() []Metric {
	var out []Metric
	for _, f := range CompareFamilies {
		for _, s := range CompareStats {
			out = append(out, Metric{s + "_" + f + "_ms", "ms", true})
		}
	}
	return append(out,
		Metric{"output_throughput", "tok/s", false},
		Metric{"request_throughput", "req/s", false},
		Metric{"goodput", "%", false},
		Metric{"failed_percent", "%", true})
}

func Pct(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(k) / float64(n)
}

// Num is f as an optional JSON number (NaN and ±Inf have none).
func Num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// MetricLabel is a metric row's name as people read it: key and unit,
// except that the share of good requests, keyed "goodput" for
// compatibility (--max-regression goodput:1), reads as what it is.
func MetricLabel(key, unit string) string {
	if key == "goodput" {
		return "SLO attainment (" + unit + ")"
	}
	return key + " (" + unit + ")"
}
