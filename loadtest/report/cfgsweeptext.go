package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/cfgsweep"
)

// WriteConfigSweep prints the table across configurations, the best one
// for the plan with why, and each failed one's exit status and log tail
// (escaped: a server's log is any bytes).
func WriteConfigSweep(r *cfgsweep.Result, w io.Writer) {
	fmt.Fprintln(w, textfmt.Center(" Configuration sweep ", '='))
	tail := "p99"
	for _, row := range r.Rows {
		if row.Tail > 0 {
			tail = "p" + textfmt.PercentileName(row.Tail)
			break
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "#\tconfiguration\tKV blocks\tmax conc.\tknee req/s achieved\toffered (95%% interval)\tout tok/s\t%s TTFT ms\t%s TPOT ms\tpast the knee\tGPUs\tstatus\n", tail, tail)
	for i, row := range r.Rows {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, textfmt.SafeLine(csLabel(row)),
			csCount(row.KVBlocks), csCount(row.MaxConcurrency), csKnee(row), csOffered(row), csNum(row.OutputThroughput, 0),
			csNum(row.TailTTFT, 1), csNum(row.TailTPOT, 1), csDash(textfmt.SafeLine(row.Bottleneck)), csCount(row.GPUs), row.Status)
	}
	tw.Flush()
	if r.Best != nil {
		fmt.Fprintf(w, "Best configuration: %s: %s\n", textfmt.SafeLine(r.Best.Label), textfmt.SafeLine(r.Best.Why))
	} else {
		fmt.Fprintln(w, "Best configuration: none reached a knee")
	}
	for i, row := range r.Rows {
		if row.Status == cfgsweep.StatusOK {
			continue
		}
		fmt.Fprintf(w, "%d %s: %s", i+1, textfmt.SafeLine(csLabel(row)), textfmt.SafeLine(row.Error))
		if row.ExitStatus != "" {
			fmt.Fprintf(w, " (%s)", textfmt.SafeLine(row.ExitStatus))
		}
		fmt.Fprintln(w)
		if row.Command != "" && row.Status == cfgsweep.StatusFailed {
			fmt.Fprintf(w, "  command: %s\n", textfmt.SafeLine(row.Command))
		}
		if row.LogTail != "" {
			fmt.Fprintln(w, "  its log's last lines:")
			for _, l := range strings.Split(row.LogTail, "\n") {
				fmt.Fprintf(w, "  | %s\n", textfmt.SafeLine(l))
			}
		}
	}
}

func csLabel(r cfgsweep.Row) string {
	return cfgsweep.Configuration{Name: r.Name, Params: r.Params}.Label()
}

func csKnee(r cfgsweep.Row) string {
	switch {
	case r.Status == cfgsweep.StatusLowerBound:
		return fmt.Sprintf("> %.2f", r.LowerBound)
	case r.Status != cfgsweep.StatusOK:
		return "-"
	}
	return fmt.Sprintf("%.2f", r.KneeRate)
}

// csOffered is the offered knee rate and its interval.
func csOffered(r cfgsweep.Row) string {
	switch {
	case r.Status != cfgsweep.StatusOK:
		return "-"
	case r.KneeHigh > 0:
		return fmt.Sprintf("%.2f (%.2f–%.2f)", r.KneeOffered, r.KneeLow, r.KneeHigh)
	}
	return fmt.Sprintf("%.2f", r.KneeOffered)
}

func csCount(n int) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func csNum(v float64, prec int) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func csDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
