package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// WriteText prints what was served, the knee, the warnings, then bench's
// capacity plan with its formula and every number in it.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintln(w, "================ Served traffic ================")
	fmt.Fprintf(w, "source: %s, selector %s\n", r.Prometheus, r.Selector)
	if len(r.Targets) == 1 {
		fmt.Fprintf(w, "target: %s (re-exported by %d prober(s), counted once)\n", r.Targets[0], r.Probers)
	} else {
		fmt.Fprintf(w, "targets: %d matched, their traffic summed: %s (each re-exported by up to %d prober(s), counted once)\n",
			len(r.Targets), strings.Join(r.Targets, ", "), r.Probers)
	}
	hist := about(time.Duration(r.History * float64(time.Second)))
	fmt.Fprintf(w, "window: %s to %s, %s of history", short(time.Duration(r.WindowSeconds*float64(time.Second))), r.WindowEnd, hist)
	if r.Partial {
		fmt.Fprint(w, " (partial)")
	}
	fmt.Fprintln(w)
	ri := short(time.Duration(r.RateInterval * float64(time.Second)))
	fmt.Fprintf(w, "rates: rate(llm_prober_server_requests_finished_total[%s]) every %gs\n", ri, r.StepSeconds)
	fmt.Fprintf(w, "mean rate: %.3f req/s (%.0f requests a day)\n", r.MeanRate, r.DailyRequests)
	fmt.Fprintf(w, "peak %s rate: %.3f req/s at %s\n", ri, r.PeakRate, r.PeakTime)
	fmt.Fprintf(w, "p99 of the %s rates: %.3f req/s\n", ri, r.P99Rate)
	fmt.Fprintf(w, "busiest hour of the day: %02d:00-%02d:00 %s, mean daily peak %.3f req/s over %d day(s) (highest %.3f)\n",
		r.Busiest.Hour, (r.Busiest.Hour+1)%24, r.Timezone, r.Busiest.MeanPeak, r.Busiest.Days, r.Busiest.MaxPeak)
	fmt.Fprintf(w, "prompt tokens: mean %s, median %s, p90 %s\n", tok(r.PromptMean), tok(r.PromptP50), tok(r.PromptP90))
	fmt.Fprintf(w, "generation tokens: mean %s, median %s, p90 %s\n", tok(r.OutputMean), tok(r.OutputP50), tok(r.OutputP90))
	fmt.Fprintf(w, "knee: %.3f req/s per replica (%s", r.Knee.Rate, r.Knee.Source)
	if !math.IsNaN(float64(r.Knee.PromptMean)) {
		fmt.Fprintf(w, "; measured with prompts of %s and generations of %s tokens on average", tok(r.Knee.PromptMean), tok(r.Knee.OutputMean))
	}
	fmt.Fprintln(w, ")")
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	r.plan.WriteText(w)
}

func tok(f Float) string {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return "unknown"
	}
	return fmt.Sprintf("%.0f", float64(f))
}

// WriteJSON writes the result to path.
func (r *Result) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
