package compare

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// Input is one side of a comparison: a single run's --output-json file,
// or a --num-runs summary (FILE itself, beside FILE.runN.json).
type Input struct {
	Path string
	Run  *resultfile.RunFile
	Runs *summary.RunsSummary
}

// maxRunsFile bounds a --num-runs summary read (it holds a few numbers
// per run and metric).
const maxRunsFile = 16 << 20

// Load reads path as a --num-runs summary (its first key is num_runs)
// or a single run's file.
func Load(path string) (*Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	t1, err1 := dec.Token()
	t2, err2 := dec.Token()
	if err1 != nil || err2 != nil || t1 != json.Delim('{') || t2 != "num_runs" {
		rf, err := resultfile.ReadRunFile(path)
		return &Input{Path: path, Run: rf}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxRunsFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRunsFile {
		return nil, fmt.Errorf("%s: a --num-runs summary over %d MiB", path, maxRunsFile>>20)
	}
	s := &summary.RunsSummary{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("%s: --num-runs summary: %w", path, err)
	}
	if s.Runs < 1 || len(s.Rows) == 0 {
		return nil, fmt.Errorf("%s: --num-runs summary without runs or metrics", path)
	}
	for _, r := range s.Rows {
		if len(r.Values) != 0 && len(r.Values) != s.Runs {
			return nil, fmt.Errorf("%s: metric %s: %d values for num_runs %d", path, r.Key, len(r.Values), s.Runs)
		}
	}
	return &Input{Path: path, Runs: s}, nil
}

// CompareInputs compares two inputs of the same kind: two summaries
// across runs (CompareRuns), two single runs across requests (Compare).
func CompareInputs(base, nw *Input, alpha float64, ts []Threshold) (*Comparison, error) {
	switch {
	case base.Runs != nil && nw.Runs != nil:
		return CompareRuns(base.Runs, nw.Runs, base.Path, nw.Path, alpha, ts), nil
	case base.Run != nil && nw.Run != nil:
		return Compare(base.Run, nw.Run, alpha, ts), nil
	}
	return nil, errors.New("compare a --num-runs summary with another (across runs), or a single run's file with another: " +
		"not one of each")
}

// Has reports whether in can have metric key (CompareKeys) at all.
func (in *Input) Has(key string) bool {
	if in.Run != nil {
		return in.Run.Has(key)
	}
	for _, r := range in.Runs.Rows {
		if r.Key == key {
			return len(r.Values) > 0
		}
	}
	return false
}
