package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
)

// ProgressPrinter renders Progress as a one-line bar on a terminal
// (completed/total, rate, ETA) and as a plain line every few seconds
// otherwise.
type ProgressPrinter struct {
	W        io.Writer
	Terminal bool
	Label    string
	// Every is the interval of plain lines (default 5s).
	Every time.Duration

	last time.Duration
}

// Print is an Options.Progress function.
func (p *ProgressPrinter) Print(pr loadtest.Progress) {
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	eta := "ETA ?"
	switch {
	case pr.Total > 0 && rate > 0:
		eta = "ETA " + (time.Duration(float64(pr.Total-pr.Done)/rate) * time.Second).Round(time.Second).String()
	case pr.Total == 0 && pr.Final:
		eta = "done"
	case pr.Total == 0 && pr.Remaining <= 0:
		// The duration is over: nothing more is sent, the last requests end.
		eta = fmt.Sprintf("draining %d in flight", pr.InFlight)
	case pr.Total == 0 && pr.ClosedLoop:
		eta = "users stop in " + pr.Remaining.Round(time.Second).String()
	case pr.Total == 0:
		eta = "ETA " + pr.Remaining.Round(time.Second).String() + " sending"
	}
	count := fmt.Sprint(pr.Done)
	if pr.Total > 0 {
		count = fmt.Sprintf("%d/%d", pr.Done, pr.Total)
	}
	// W takes this line's own \r and ESC [K raw: the rest is escaped here.
	text := textfmt.SafeLine(fmt.Sprintf("%s%s req  %.1f req/s  %d in flight  %d failed  %s", p.Label, count, rate, pr.InFlight, pr.Failed, eta))
	if p.Terminal {
		bar := ""
		if pr.Total > 0 {
			const width = 24
			n := min(width*pr.Done/max(pr.Total, 1), width)
			bar = "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] "
		}
		fmt.Fprintf(p.W, "\r\033[K%s%s", bar, text)
		if pr.Final {
			fmt.Fprintln(p.W)
		}
		return
	}
	every := p.Every
	if every <= 0 {
		every = 5 * time.Second
	}
	if pr.Final || pr.Elapsed-p.last >= every {
		p.last = pr.Elapsed
		fmt.Fprintf(p.W, "progress: %s elapsed %s\n", text, pr.Elapsed.Round(time.Second))
	}
}
