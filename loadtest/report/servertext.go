package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

const notReported = "not reported by the server"

// WriteServer prints what the server's metrics said, and the verdict.
func WriteServer(s *serverwatch.ServerReport, w io.Writer, v summary.Verdict) {
	line := func(label string, val any) { fmt.Fprintf(w, "%-40s %v\n", label+":", val) }
	fmt.Fprintln(w, textfmt.Center(" Server during the run ", '='))
	if !s.Available {
		line("Server metrics", "unavailable ("+s.Err+")")
	} else {
		line("Backend (metrics mapping)", s.Backend)
		line("Scrapes", s.Scrapes)
		// A gauge the server does not export is said so, never 0.
		reported := func(label string, ok bool, f string, v float64) {
			if ok {
				line(label, fmt.Sprintf(f, v))
			} else {
				line(label, notReported)
			}
		}
		reported("Peak KV-cache usage (%)", s.KVReported, "%.1f", 100*s.PeakKVUsage)
		reported("Peak running requests", s.RunningReported, "%.0f", s.PeakRunning)
		reported("Peak waiting requests", s.WaitingReported, "%.0f", s.PeakWaiting)
		reported("Preemptions", s.PreemptionsReported, "%.0f", s.Preemptions)
		reported("Preemptions per 100 requests", s.PreemptionsReported, "%.2f", s.PreemptionsPer100)
		if s.PrefixHitRate >= 0 {
			line("Prefix-cache hit rate (%)", fmt.Sprintf("%.1f", 100*s.PrefixHitRate))
		} else {
			line("Prefix-cache hit rate", "not reported")
		}
		if s.SpecAcceptance >= 0 {
			line("Spec-decode acceptance (%)", fmt.Sprintf("%.1f", 100*s.SpecAcceptance))
			if s.SpecMeanAccepted > 0 {
				line("Spec-decode tokens per step", fmt.Sprintf("%.2f", s.SpecMeanAccepted))
			}
		} else {
			line("Spec-decode acceptance", "not in use")
		}
		if s.MeanQueueTime >= 0 {
			line("Mean server queue time (ms)", fmt.Sprintf("%.2f", float64(s.MeanQueueTime)/1e6))
		}
		if s.MeanTTFT > 0 {
			line("Server's own mean TTFT (ms)", fmt.Sprintf("%.2f", float64(s.MeanTTFT)/1e6))
		}
	}
	fmt.Fprintln(w, textfmt.Center(" Bottleneck ", '-'))
	line("Verdict", v.Bottleneck)
	fmt.Fprintln(w, "  "+v.Summary)
	for _, e := range v.Evidence {
		fmt.Fprintln(w, "  - "+e)
	}
	fmt.Fprintln(w, strings.Repeat("=", 50))
}
