package report

import (
	"testing"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// runWatched runs opts while w watches the server, then returns the
// server's report attached to the run's (no SLO).
func runWatched(t *testing.T, w *serverwatch.Watcher, opts loadtest.Options) (serverwatch.ServerReport, *summary.Report) {
	t.Helper()
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := w.Stop(t.Context())
	rep := summary.Summarize(run, summary.SLO{}, nil)
	summary.AttachServer(&srv, rep)
	return srv, rep
}
