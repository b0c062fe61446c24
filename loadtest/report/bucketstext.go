package report

import (
	"fmt"
	"io"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// writeInputBuckets prints SLO attainment by prompt length: where a
// mixed workload meets its objectives and where it misses them.
func writeInputBuckets(rep *summary.Report, w io.Writer) {
	if len(rep.InputBuckets) == 0 {
		return
	}
	fmt.Fprintln(w, textfmt.Center(fmt.Sprintf("SLO attainment by input tokens, from the %s", rep.Basis), '-'))
	fmt.Fprintf(w, "%-12s %-9s %-9s %-11s %-10s %-10s %s\n", "input tok", "requests", "good", "attain. %", "TTFT p50", "TTFT p99", "TTFT SLO ms")
	for _, b := range rep.InputBuckets {
		fmt.Fprintf(w, "%-12s %-9d %-9d %-11.2f %-10.2f %-10.2f %s\n", BucketName(b), b.Requests, b.Good, b.Percent,
			b.TTFT.Median, b.TTFT.Value(99), BucketTTFTSLO(rep.SLO, b))
	}
}

// BucketName is a bucket's token range, "?" for unknown lengths.
func BucketName(b summary.InputBucket) string {
	switch {
	case b.Hi == 0:
		return "?"
	case b.Lo == b.Hi:
		return fmt.Sprint(b.Lo)
	}
	return fmt.Sprintf("%d-%d", b.Lo, b.Hi)
}

// BucketTTFTSLO is the TTFT objective over a bucket's range ("-" when
// none is set): one figure when it is fixed.
func BucketTTFTSLO(s summary.SLO, b summary.InputBucket) string {
	if !s.HasTTFT() {
		return "-"
	}
	lo, hi := float64(s.TTFTFor(b.Lo))/1e6, float64(s.TTFTFor(b.Hi))/1e6
	if lo == hi {
		return fmt.Sprintf("%g", lo)
	}
	return fmt.Sprintf("%g-%g", lo, hi)
}
