package cfgsweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// maxResultBytes caps a result file read by --resume: a thousand rows of
// twenty curve points and a 64 KiB log tail each would not fit, but the
// tails shown are 20 lines of 400 bytes.
const maxResultBytes = 64 << 20

// WriteFile writes r to path through a temporary file renamed into place:
// an interrupt or a crash leaves the last complete table, never half of
// one.
func WriteFile(path string, r *Result) error {
	r.Format = formatVersion
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cfgsweep-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// ReadResult reads a result file for --resume; a missing file is an empty
// result. Every row is checked: a key that is not its configuration's, a
// number that is negative or not finite, or an unknown status names the
// row.
func ReadResult(path string) (*Result, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return &Result{}, nil
	}
	raw, err := safefile.ReadFile(path, maxResultBytes)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("--resume: %s: not a configuration sweep's result: %v", path, err)
	}
	if r.Format != formatVersion {
		return nil, fmt.Errorf("--resume: %s: llm_prober_config_sweep is %d, not %d", path, r.Format, formatVersion)
	}
	if len(r.Rows) > MaxConfigurations {
		return nil, fmt.Errorf("--resume: %s: %d rows (at most %d)", path, len(r.Rows), MaxConfigurations)
	}
	for i := range r.Rows {
		if err := r.Rows[i].check(); err != nil {
			return nil, fmt.Errorf("--resume: %s: row %d: %w", path, i+1, err)
		}
	}
	return &r, nil
}

func (r *Row) check() error {
	c := Configuration{Name: r.Name, Params: r.Params}
	if r.Key != c.Key() {
		return fmt.Errorf("key %q is not its configuration's (%q)", r.Key, c.Key())
	}
	if len(r.LogFile) > 256 || strings.ContainsAny(r.LogFile, "/\\") {
		return errors.New("log_file is not a file name of at most 256 bytes")
	}
	switch r.Status {
	case StatusOK, StatusLowerBound, StatusNoKnee, StatusFailed, StatusInterrupted:
	default:
		return fmt.Errorf("unknown status %q", r.Status)
	}
	for _, v := range []float64{r.KneeRate, r.KneeOffered, r.KneeLow, r.KneeHigh, r.LowerBound, r.OutputThroughput, r.TailTTFT, r.TailTPOT, r.Tail} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("a number is negative or not finite (%g)", v)
		}
	}
	for _, n := range []int{r.KVBlocks, r.BlockSize, r.MaxSeqs, r.MaxConcurrency, r.GPUs, r.Replicas} {
		if n < 0 {
			return fmt.Errorf("a count is negative (%d)", n)
		}
	}
	if len(r.Curve) > 1000 {
		return fmt.Errorf("%d curve points (at most 1000)", len(r.Curve))
	}
	for _, p := range r.Curve {
		for _, v := range []float64{p.Rate, p.RequestRate, p.OutputThroughput, p.TailTTFT, p.TailTPOT, p.GoodputPercent} {
			if v < 0 || math.IsInf(v, 0) {
				return fmt.Errorf("a curve point's number is negative or not finite (%g)", v)
			}
		}
	}
	return nil
}
