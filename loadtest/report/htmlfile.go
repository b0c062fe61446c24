package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// CheckHTMLPath fails before a run, not after it, when --report cannot
// be written at path: its directory must exist. "" is no report.
func CheckHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("--report %s: no such directory %s", path, filepath.Dir(path))
	}
	return nil
}

// WriteHTMLFile writes h to path (--report of bench, bench compare and
// bench merge).
func WriteHTMLFile(path string, h *HTMLReport) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := errors.Join(h.Write(f), f.Close()); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}

// NewSweepHTML is a sweep's page: the sweep and the run view of its knee
// (else the lower bound, the first failure, the last point); views holds
// the points' views, kept while the sweep ran.
func NewSweepHTML(sw *sweep.Sweep, views map[*sweep.Point]*RunView) *HTMLReport {
	h := &HTMLReport{Sweep: sw}
	pick := sw.Knee
	if pick == nil {
		pick = sw.Above
	}
	if pick == nil {
		pick = sw.FirstBad
	}
	if pick == nil && len(sw.Points) > 0 {
		pick = sw.Points[len(sw.Points)-1]
	}
	if v := views[pick]; v != nil {
		h.Runs = []*RunView{v}
	}
	return h
}
