package summary

import (
	"math"
	"time"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// KV is one key of the JSON result, kept in order.
type KV struct {
	Key   string
	Value any
}

// VLLMKeys returns the aggregate under vllm bench serve's result key names
// (duration, completed, request_throughput, mean_ttft_ms, p99_itl_ms, …),
// then what vllm bench has no key for, under llm_prober_*.
func (rep *Report) VLLMKeys() []KV {
	rate := any(rep.Rate)
	if math.IsInf(rep.Rate, 1) || rep.Mode == "closed-loop" {
		rate = "inf" // vllm bench's closed loop: --max-concurrency at an infinite rate
	}
	var maxConc any
	if rep.MaxConcurrency > 0 {
		maxConc = rep.MaxConcurrency
	}
	var goodput any
	if rep.SLO.Set() {
		goodput = rep.GoodputRate
	}
	kv := []KV{
		{"date", time.Now().Format("20060102-150405")},
		{"num_prompts", rep.Completed + rep.Failed + rep.Cancelled}, // one per entry of the arrays
		{"request_rate", rate},
		{"burstiness", rep.Burstiness},
		{"max_concurrency", maxConc},
		{"duration", rep.Duration.Seconds()},
		{"completed", rep.Completed},
		{"failed", rep.Failed},
		{"total_input_tokens", rep.TotalInput},
		{"total_output_tokens", rep.TotalOutput},
		{"request_throughput", rep.RequestThroughput},
		{"request_goodput", goodput},
		{"output_throughput", rep.OutputThroughput},
		{"total_token_throughput", rep.TotalTokenThroughput},
		{"max_output_tokens_per_s", rep.PeakOutputThroughput},
		{"max_concurrent_requests", rep.PeakConcurrency},
	}
	for _, m := range []struct {
		name string
		s    stats.Stats
	}{{"ttft", rep.TTFT}, {"tpot", rep.TPOT}, {"itl", rep.ITL}, {"e2el", rep.E2EL}} {
		kv = append(kv, KV{"mean_" + m.name + "_ms", m.s.Mean}, KV{"median_" + m.name + "_ms", m.s.Median},
			KV{"std_" + m.name + "_ms", m.s.Std})
		for _, p := range m.s.Percentiles {
			kv = append(kv, KV{"p" + textfmt.PercentileName(p.P) + "_" + m.name + "_ms", p.Value})
		}
	}
	failed := map[string]int{}
	for r, n := range rep.FailedBy {
		failed[string(r)] = n
	}
	kv = append(kv,
		KV{"llm_prober_mode", rep.Mode},
		KV{"llm_prober_workload", rep.Workload},
		KV{"llm_prober_warmup_requests", rep.Warmup},
		KV{"llm_prober_failed_by_reason", failed},
		KV{"llm_prober_goodput_slo", rep.SLO.String()},
		KV{"llm_prober_good_requests", rep.Good},
		KV{"llm_prober_goodput_percent", rep.GoodputPercent},
		KV{"llm_prober_cut_short_requests", rep.CutShort},
		KV{"llm_prober_mean_concurrent_requests", rep.MeanConcurrency},
		KV{"llm_prober_peak_in_flight_requests", rep.PeakInFlight},
		KV{"llm_prober_max_concurrent_requests_exact", rep.ExactPeakConcurrency},
		KV{"llm_prober_server_prompt_tokens", rep.ServerPromptTokens},
		KV{"llm_prober_cached_prompt_tokens", rep.CachedTokens},
		KV{"llm_prober_itl_percentile_relative_error", stats.HistRelError},
	)
	for _, m := range []struct {
		name string
		s    stats.Stats
	}{{"ttft", rep.TTFT}, {"tpot", rep.TPOT}, {"e2el", rep.E2EL}} {
		if !math.IsNaN(m.s.P99Low) && m.s.Count >= 2 {
			// null: unbounded (too few effective requests for a p99's upper end).
			kv = append(kv, KV{"llm_prober_p99_" + m.name + "_ci95_ms", []*float64{Num(m.s.P99Low), Num(m.s.P99High)}})
		}
	}
	{
		// Each request's worst gap: vllm bench has no such key.
		m := rep.MaxITL
		kv = append(kv, KV{"llm_prober_mean_max_itl_ms", m.Mean}, KV{"llm_prober_median_max_itl_ms", m.Median},
			KV{"llm_prober_std_max_itl_ms", m.Std})
		for _, p := range m.Percentiles {
			kv = append(kv, KV{"llm_prober_p" + textfmt.PercentileName(p.P) + "_max_itl_ms", p.Value})
		}
	}
	kv = append(kv, rep.sloKeys()...)
	kv = append(kv, KV{"llm_prober_sample_warnings", nonNil(rep.SampleWarnings())})
	if rep.Lag.Count > 0 {
		kv = append(kv, KV{"llm_prober_send_lag_ms", statsMap(rep.Lag)})
	}
	kv = append(kv, rep.scheduleKeys()...)
	kv = append(kv, rep.stageKeys()...)
	return append(kv, rep.turnKeys()...)
}

func statsMap(s stats.Stats) map[string]float64 {
	m := map[string]float64{"mean": s.Mean, "median": s.Median, "std": s.Std}
	for _, p := range s.Percentiles {
		m["p"+textfmt.PercentileName(p.P)] = p.Value
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
