package main

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// handleLogs shows one probe from the history: /logs?id=<probe_id>, the
// id found on the landing page and on histogram exemplars.
func (a *app) handleLogs(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		http.Error(w, "id parameter is missing", http.StatusBadRequest)
		return
	}
	e, ok := a.history.Get(id)
	if !ok {
		http.Error(w, fmt.Sprintf("probe id %q not found: the history keeps the last %d successful and %d failed probes",
			id, prober.DefaultHistorySuccesses, prober.DefaultHistoryFailures), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, probeDetails(e))
}

func probeDetails(e *prober.HistoryEntry) string {
	res := &e.Result
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s:\t%v\n", k, v) }
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
	if e.Error != "" {
		row("Error", e.Error)
	}
	row("HTTP status", res.HTTPStatus)
	row("Time to headers", res.Headers)
	if res.HasTTFT {
		row("TTFT", res.TTFT)
	}
	row("TPOT", res.TPOT)
	row("E2E latency", res.E2EL)
	if s := e.ITL; s.Count > 0 {
		row("ITL", fmt.Sprintf("%d gaps, min %s, p50 %s, p90 %s, max %s, mean %s", s.Count, s.Min, s.P50, s.P90, s.Max, s.Mean))
	}
	row("Content chunks", res.ContentChunks)
	usage := "counted chunks (no usage from the server)"
	if res.UsageReported {
		usage = "server usage"
	}
	row("Output tokens", fmt.Sprintf("%d (%s)", res.OutputTokens, usage))
	row("Prompt tokens", fmt.Sprintf("%d (%d cached)", res.PromptTokens, res.CachedTokens))
	row("Finish reason", res.FinishReason)
	_ = tw.Flush()
	if res.Output != "" {
		fmt.Fprintf(&b, "\nOutput (at most 2 KiB):\n%s\n", res.Output)
	}
	if len(e.Log) > 0 {
		b.WriteString("\nLogs for the probe:\n")
		for _, l := range e.Log {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
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
	template.Must(landingTemplate.New("history").Funcs(template.FuncMap{"outcome": outcome}).Parse(`
<h2>Recent probes</h2>
<p>The last {{.Successes}} successful and {{.Failures}} failed probes, newest first. Probe ids on histogram exemplars resolve here.</p>
<table><tr><th>Finished</th><th>Target</th><th>Module</th><th>Kind</th><th>Outcome</th><th>TTFT</th><th>E2EL</th><th>Output tokens</th><th>Probe id</th></tr>
{{range .Entries}}<tr><td>{{ago .End}}</td><td>{{.Result.Target}}</td><td>{{.Result.Module}}</td><td>{{if .OnDemand}}on demand{{else}}scheduled{{end}}</td>
<td class="{{if .Result.Success}}ok{{else}}fail{{end}}">{{outcome .}}</td><td>{{if .Result.HasTTFT}}{{ms .Result.TTFT}}{{end}}</td><td>{{if .Result.Success}}{{ms .Result.E2EL}}{{end}}</td><td>{{.Result.OutputTokens}}</td>
<td><a href="/logs?id={{.Result.ID}}">{{.Result.ID}}</a></td></tr>
{{else}}<tr><td colspan="9">no probes yet</td></tr>
{{end}}</table>`))
}

// historyData feeds the history sub-template.
type historyData struct {
	Successes, Failures int
	Entries             []*prober.HistoryEntry
}

func (a *app) historyData() historyData {
	return historyData{Successes: prober.DefaultHistorySuccesses, Failures: prober.DefaultHistoryFailures,
		Entries: a.history.Recent()}
}
