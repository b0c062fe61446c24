package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// WriteText prints the report in vllm bench serve's layout, with std,
// the chosen percentiles and what the load generator itself did.
func WriteText(rep *summary.Report, w io.Writer) {
	line := func(label string, v any) { fmt.Fprintf(w, "%-40s %v\n", label+":", v) }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	fmt.Fprintln(w, textfmt.Center(" Serving Benchmark Result ", '='))
	switch rep.Mode {
	case "closed-loop":
		line("Load", fmt.Sprintf("closed-loop, %d concurrent users", rep.MaxConcurrency))
	default:
		load := "open-loop, all requests at once"
		switch {
		case rep.Shape != "":
			load = fmt.Sprintf("open-loop, %s (mean %s req/s planned)", rep.Shape, textfmt.FmtG(rep.Rate))
		case !math.IsInf(rep.Rate, 1):
			load = fmt.Sprintf("open-loop, %s req/s, burstiness %g", textfmt.FmtG(rep.Rate), rep.Burstiness)
			if rep.Burstiness == 1 {
				load += " (Poisson)"
			}
		}
		if rep.MaxConcurrency > 0 {
			load += fmt.Sprintf(", max concurrency %d", rep.MaxConcurrency)
		}
		line("Load", load)
	}
	if rep.Workload != "" {
		line("Workload", rep.Workload)
	}
	if rep.Warmup > 0 {
		line("Warm-up requests (discarded)", rep.Warmup)
	}
	line("Successful requests", rep.Completed)
	line("Failed requests", rep.Failed)
	for _, r := range rep.Reasons() {
		line("  "+string(r), rep.FailedBy[r])
	}
	if rep.Cancelled > 0 {
		line("Cancelled requests (run cut them off)", rep.Cancelled)
	}
	line("Benchmark duration (s)", f2(rep.Duration.Seconds()))
	line("Total input tokens", rep.TotalInput)
	if rep.ServerPromptTokens > 0 && rep.ServerPromptTokens != rep.TotalInput {
		line("  prompt tokens per server usage", rep.ServerPromptTokens)
	}
	if rep.CachedTokens > 0 {
		line("  of which prefix-cache hits", rep.CachedTokens)
	}
	line("Total generated tokens", rep.TotalOutput)
	line("Request throughput (req/s)", f2(rep.RequestThroughput))
	if rep.SLO.Set() {
		// The SLOs on a line of their own: however long, the labels
		// stay in vllm bench's 40-column layout.
		line("SLOs (--goodput, ms)", rep.SLO.String())
		line("Request goodput (req/s)", f2(rep.GoodputRate))
		line("SLO attainment (%)", f2(rep.GoodputPercent))
		if rep.Mode != "closed-loop" {
			line("  counted from the send (%)", f2(rep.GoodputPercentSend))
			line("  counted from the schedule (%)", f2(rep.GoodputPercentSchedule))
		}
		for _, n := range summary.SLONames {
			if k := rep.MissedBy[n]; k > 0 {
				line("  requests that missed "+n, k)
			}
		}
	}
	line("Output token throughput (tok/s)", f2(rep.OutputThroughput))
	line("Peak output token throughput (tok/s)", f2(rep.PeakOutputThroughput))
	line("Peak concurrent requests", rep.PeakConcurrency)
	line("Peak requests in flight", rep.PeakInFlight)
	line("Mean concurrent requests", f2(rep.MeanConcurrency))
	line("Total Token throughput (tok/s)", f2(rep.TotalTokenThroughput))
	writeStats(rep, w, "Time to First Token", "TTFT", rep.TTFT)
	writeStats(rep, w, "Time per Output Token (excl. 1st token)", "TPOT", rep.TPOT)
	writeStats(rep, w, "Inter-token Latency", "ITL", rep.ITL)
	writeStats(rep, w, "End-to-end Latency", "E2EL", rep.E2EL)
	if rep.MaxITL.Count > 0 {
		writeStats(rep, w, "Worst gap per request (max ITL)", "max_itl", rep.MaxITL)
	}
	if rep.Mode != "closed-loop" && rep.Lag.Count > 0 {
		writeStats(rep, w, "Send lag behind schedule", "lag", rep.Lag)
		writeStats(rep, w, "TTFT from the planned send time", "TTFT", rep.SchedTTFT)
		writeStats(rep, w, "E2EL from the planned send time", "E2EL", rep.SchedE2EL)
	}
	writeInputBuckets(rep, w)
	writeStages(rep, w)
	writeTurns(rep, w)
	fmt.Fprintln(w, textfmt.Center("Latency basis", '-'))
	fmt.Fprintf(w, "%-40s %s\n", "SLOs, --fail-on, knee, verdict use:", "from the "+rep.Basis)
	fmt.Fprintln(w, "("+rep.BasisReason+")")
	fmt.Fprintln(w, strings.Repeat("=", 50))
}

func writeStats(rep *summary.Report, w io.Writer, title, short string, s stats.Stats) {
	fmt.Fprintln(w, textfmt.Center(title, '-'))
	row := func(label string, v float64) {
		fmt.Fprintf(w, "%-40s %s\n", label+" "+short+" (ms):", strconv.FormatFloat(v, 'f', 2, 64))
	}
	row("Mean", s.Mean)
	row("Median", s.Median)
	row("Std", s.Std)
	for _, p := range s.Percentiles {
		row("P"+textfmt.PercentileName(p.P), p.Value)
	}
	if !s.Exact && s.Count > 0 {
		fmt.Fprintf(w, "(%s percentiles from a log-linear histogram of %d gaps, within %.2f%%)\n", short, s.Count, 100*stats.HistRelError)
	}
}
