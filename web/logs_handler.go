package web

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/prober"
)

// Logs shows one probe from the history: /logs?id=<probe_id>, the
// id found on the landing page and on histogram exemplars.
func (u *UI) Logs(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		http.Error(w, "id parameter is missing", http.StatusBadRequest)
		return
	}
	e, ok := u.o.History.Get(id)
	if !ok {
		http.Error(w, fmt.Sprintf("probe id %q not found: the history keeps the last %d successful and %d failed probes",
			id, prober.DefaultHistorySuccesses, prober.DefaultHistoryFailures), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The probe's text quotes the server: escaped, as on /probe?debug.
	if err := logsTemplate.Execute(textfmt.NewSafeWriter(w), logsPage{ID: id, Details: probeDetails(e)}); err != nil {
		level.Warn(u.logger).Log("msg", "rendering /logs", "err", err)
	}
}

type logsPage struct{ ID, Details string }

// logsTemplate is the probe's text, as preformatted HTML so that the page
// can link back to the status page it is reached from.
var logsTemplate = template.Must(template.New("logs").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>llm-prober: probe {{.ID}}</title></head><body>
<p><a href="/">Status page</a> · <a href="/?failing=1">failing only</a></p>
<pre>
{{.Details}}</pre>
</body></html>
`))

// probeDetails is the /logs page of one probe: its phases, its answer
// and its log lines.
func probeDetails(e *prober.HistoryEntry) string {
	var b strings.Builder
	b.WriteString(probePhases(e))
	if e.Result.Output != "" {
		fmt.Fprintf(&b, "\nOutput (at most 2 KiB):\n%s\n", e.Result.Output)
	}
	if len(e.Log) > 0 {
		b.WriteString("\nLogs for the probe:\n")
		for _, l := range e.Log {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// notMeasured stands for a value the probe never got to measure: a failed
// probe has no E2EL, one that got no headers has no status. A 0 there
// would read as a measurement.
const notMeasured = "—"

// probePhases is the table of what a probe measured, "—" where it never
// got that far.
func probePhases(e *prober.HistoryEntry) string {
	res := &e.Result
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s:\t%v\n", k, v) }
	measured := func(ok bool, v any) any {
		if !ok {
			return notMeasured
		}
		if d, isDur := v.(time.Duration); isDur {
			return roundDuration(d)
		}
		return v
	}
	kind := "scheduled"
	if e.OnDemand {
		kind = "on demand (/probe)"
	}
	row("Probe id", res.ID)
	row("Target", res.Target)
	row("Model", res.Model)
	row("Module", res.Module)
	row("Kind", kind)
	row("Started", res.Start.UTC().Format(time.RFC3339Nano))
	row("Finished", e.End.UTC().Format(time.RFC3339Nano))
	row("Outcome", outcome(e))
	if res.Warmup != "" {
		row("Warm-up", "after a target restart ("+res.Warmup+"): kept out of the SLO and good-probe counters")
	}
	if phase := res.Reason.TimeoutPhase(); phase != "" {
		row("Timed out", phase)
	}
	if e.Error != "" {
		row("Error", e.Error)
	}
	responded := res.HTTPStatus != 0
	ended := res.E2EL > 0 // the stream ended, well or not
	row("HTTP status", measured(responded, res.HTTPStatus))
	row("Time to headers", measured(responded, res.Headers))
	row("TTFT", measured(res.HasTTFT, res.TTFT))
	row("TPOT", measured(res.TPOT > 0, res.TPOT))
	row("E2E latency", measured(ended, res.E2EL))
	if res.Reason == prober.ReasonTimeoutDecode && res.HasTTFT && !e.End.IsZero() {
		// The gap still open at the timeout counts against max_itl too.
		open := e.End.Sub(res.Start) - res.LastChunk
		row("Worst gap (max_itl)", fmt.Sprintf("at least %s (the gap open since the last content chunk when the probe timed out)", roundDuration(max(res.MaxITL, open))))
	} else {
		row("Worst gap (max_itl)", measured(res.ContentChunks > 1, res.MaxITL))
	}
	if s := e.ITL; s.Count > 0 {
		r := roundDuration
		row("ITL", fmt.Sprintf("%d gaps, min %s, p50 %s, p90 %s, max %s, mean %s", s.Count, r(s.Min), r(s.P50), r(s.P90), r(s.Max), r(s.Mean)))
	} else {
		row("ITL", notMeasured)
	}
	row("Content chunks", measured(responded, res.ContentChunks))
	// Only a stream's chunks have arrival times: an error answer (a 404)
	// or a probe that failed before its stream has none to time.
	clock := "the reader's clock (kernel receive times were not available: HTTP/2, or not Linux)"
	if res.KernelTimes {
		clock = "kernel receive times (SO_TIMESTAMPNS)"
	}
	row("Arrival times", measured(res.KernelTimes || res.ContentChunks > 0 || res.HasTTFT, clock))
	usage := "counted chunks (no usage from the server)"
	if res.UsageReported {
		usage = "server usage"
	}
	row("Output tokens", measured(ended, fmt.Sprintf("%d (%s)", res.OutputTokens, usage)))
	row("Prompt tokens", measured(res.UsageReported, fmt.Sprintf("%d (%d cached)", res.PromptTokens, res.CachedTokens)))
	row("Finish reason", measured(res.FinishReason != "", res.FinishReason))
	_ = tw.Flush()
	return b.String()
}

// roundDuration keeps four significant digits or so: 147.7ms, not
// 147.699193ms; the clock's last digits are noise to a reader.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

func outcome(e *prober.HistoryEntry) string {
	res := &e.Result
	switch {
	case !res.Success():
		return "failed: " + string(res.Reason)
	case len(res.SLOViolations) > 0:
		return fmt.Sprintf("succeeded, SLO missed: %s", strings.Join(res.SLOViolations, ", "))
	}
	return "succeeded, good"
}

// The history table is a sub-template of the landing page.
func init() {
	template.Must(statusTemplate.New("history").Parse(`
<h2>Recent probes</h2>
<p>{{if .FailedOnly}}The last {{.Failures}} failed probes{{else}}The last {{.Successes}} successful and {{.Failures}} failed probes{{end}}, newest first. Probe ids on histogram exemplars resolve here.</p>
<table><tr><th>Finished</th><th>Target</th><th>Module</th><th>Kind</th><th>Outcome</th><th>TTFT</th><th>E2EL</th><th>Output tokens</th><th>Probe id</th></tr>
{{range .Entries}}<tr><td>{{ago .End}}</td><td>{{.Result.Target}}</td><td>{{.Result.Module}}</td><td>{{if .OnDemand}}on demand{{else}}scheduled{{end}}</td>
<td class="{{if .Result.Success}}ok{{else}}fail{{end}}">{{outcome .}}{{with .Error}}<div class="fail">{{errtext .}}</div>{{end}}</td><td>{{if .Result.HasTTFT}}{{ms .Result.TTFT}}{{else}}—{{end}}</td><td>{{if gt .Result.E2EL 0}}{{ms .Result.E2EL}}{{else}}—{{end}}</td><td>{{if gt .Result.E2EL 0}}{{.Result.OutputTokens}}{{else}}—{{end}}</td>
<td><a href="/logs?id={{.Result.ID}}">{{.Result.ID}}</a></td></tr>
{{else}}<tr><td colspan="9">{{if .FailedOnly}}no failed probes{{else}}no probes yet{{end}}</td></tr>
{{end}}</table>`))
}

// historyData feeds the history sub-template.
type historyData struct {
	Successes, Failures int
	FailedOnly          bool // the status page's ?failing=1
	Entries             []*prober.HistoryEntry
}

func (u *UI) historyData(failedOnly bool) historyData {
	h := historyData{Successes: prober.DefaultHistorySuccesses, Failures: prober.DefaultHistoryFailures,
		FailedOnly: failedOnly, Entries: u.o.History.Recent()}
	if failedOnly {
		h.Entries = slices.DeleteFunc(h.Entries, func(e *prober.HistoryEntry) bool { return e.Result.Success() })
	}
	return h
}
