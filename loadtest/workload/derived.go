package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// DerivedWorkload is a workload synthesised from a server's own series
// (bench --workload-from-prometheus), and the file --save-workload writes
// and --workload-file reads (version 1; docs/bench.md "Benchmarking the
// workload you serve" describes it).
type DerivedWorkload struct {
	Version int            `json:"version"`
	Origin  WorkloadOrigin `json:"origin"`
	// RequestRate is the mean served rate over the window (req/s).
	RequestRate float64  `json:"request_rate"`
	Burstiness  BurstFit `json:"burstiness"`
	// PrefixCacheHitRate is hits ÷ queries (tokens) over the window; nil
	// when the server exports no prefix-cache counters.
	PrefixCacheHitRate *float64 `json:"prefix_cache_hit_rate"`
	// PrefixTokens is the shared prefix that gives about that hit rate.
	PrefixTokens int        `json:"prefix_tokens"`
	Input        LengthDist `json:"input_tokens"`
	Output       LengthDist `json:"output_tokens"`
	Notes        []string   `json:"notes,omitempty"`
}

// WorkloadOrigin says where a derived workload came from.
type WorkloadOrigin struct {
	Source     string    `json:"source"` // "prometheus"
	URL        string    `json:"prometheus_url,omitempty"`
	Selector   string    `json:"selector"`
	Window     string    `json:"window"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	Targets    []string  `json:"targets,omitempty"`
	Requests   float64   `json:"requests"` // finished requests in the prompt histogram
	HistorySec float64   `json:"history_seconds"`
	// File is set when the workload was read from --workload-file.
	File string `json:"file,omitempty"`
}

// MinRate and MaxRate bound a rate read from a file or a flag: below one
// request in 11.6 days the gaps overflow a run's clock (5e-324 waited
// for ever); above a million a second is no server's.
const (
	MinRate = 1e-6
	MaxRate = 1e6
)

// jsonLine is the line of a decoding error's offset (1 when unknown).
func jsonLine(raw []byte, err error) int {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	return 1 + bytes.Count(raw[:min(max(off, 0), int64(len(raw)))], []byte("\n"))
}

// WorkloadFileVersion is the version DerivedWorkload files carry.
const WorkloadFileVersion = 1

// maxWorkloadFile bounds what --workload-file reads.
const maxWorkloadFile = 16 << 20

// maxHitRate caps the hit rate a shared prefix is fitted to: at 1 no
// Prefix length would do (every prompt needs a token of its own).
const maxHitRate = 0.95

// PrefixForHitRate is the shared prefix length P that gives hit rate h:
// with every prompt starting with the same P tokens, a server serves P of
// a prompt's L tokens from its cache, so h = P / mean L. A prompt cannot
// be shorter than the prefix: bench lengthens those to P+1 tokens, which
// raises the mean, so P solves P = h · E[max(L, P+1)] (a contraction:
// its slope h·F(P+1) is below 1). The note says how many prompts were
// lengthened and by how much the mean grew.
func PrefixForHitRate(h float64, in *LengthDist) (int, string) {
	if !(h > 0) || in == nil || in.Requests <= 0 {
		return 0, ""
	}
	var note string
	if h > maxHitRate {
		note = fmt.Sprintf("a %.1f%% prefix-cache hit rate is fitted as %.0f%% (every prompt keeps a token of its own); ", 100*h, 100*maxHitRate)
		h = maxHitRate
	}
	p := h * in.mean()
	for range 200 {
		next := h * in.meanAtLeast(p+1)
		if math.Abs(next-p) < 0.01 {
			break
		}
		p = next
	}
	tokens := int(p + 0.5)
	if short := in.cdf(float64(tokens) + 1); short > 0.001 {
		note += fmt.Sprintf("%.1f%% of the served prompts are shorter than the %d-token shared prefix: bench lengthens them to %d tokens (mean prompt %.0f → %.0f tokens)",
			100*short, tokens, tokens+1, in.mean(), in.meanAtLeast(float64(tokens)+1))
	}
	return tokens, strings.TrimSuffix(note, "; ")
}

// Save writes the workload as indented JSON.
func (w *DerivedWorkload) Save(path string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(w); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// LoadDerivedWorkload reads and checks a --save-workload file; errors
// name the file and the field.
func LoadDerivedWorkload(path string) (*DerivedWorkload, error) {
	raw, err := safefile.ReadFile(path, maxWorkloadFile)
	if err != nil {
		return nil, err
	}
	return parseDerivedWorkload(raw, path)
}

// parseDerivedWorkload decodes and checks a workload file's bytes.
func parseDerivedWorkload(raw []byte, path string) (*DerivedWorkload, error) {
	var w DerivedWorkload
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("%s:%d: not a workload file: %w", path, jsonLine(raw, err), err)
	}
	if err := w.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w.Origin.File = path
	return &w, nil
}

func (w *DerivedWorkload) Check() error {
	switch {
	case w.Version != WorkloadFileVersion:
		return fmt.Errorf("version %d: this build reads version %d", w.Version, WorkloadFileVersion)
	case w.RequestRate != 0 && !(w.RequestRate >= MinRate && w.RequestRate <= MaxRate):
		return fmt.Errorf("request_rate %g is not 0 (none derived) or a rate in [%g, %g] req/s", w.RequestRate, MinRate, MaxRate)
	case w.Burstiness.Shape != 0 && !(w.Burstiness.Shape >= MinShape && w.Burstiness.Shape <= MaxShape):
		return fmt.Errorf("burstiness.shape %g is not 0 (no fit) or in [%g, %g]", w.Burstiness.Shape, MinShape, MaxShape)
	case w.PrefixTokens < 0 || w.PrefixTokens > maxLength:
		return fmt.Errorf("prefix_tokens %d is out of range", w.PrefixTokens)
	case w.PrefixCacheHitRate != nil && !(*w.PrefixCacheHitRate >= 0 && *w.PrefixCacheHitRate <= 1):
		return fmt.Errorf("prefix_cache_hit_rate %g is not in [0, 1]", *w.PrefixCacheHitRate)
	}
	if err := w.Input.Check(); err != nil {
		return fmt.Errorf("input_tokens: %w", err)
	}
	if err := w.Output.Check(); err != nil {
		return fmt.Errorf("output_tokens: %w", err)
	}
	return nil
}

// WriteText prints what was derived, before any load.
func (w *DerivedWorkload) WriteText(out io.Writer) {
	o := w.Origin
	from := fmt.Sprintf("Prometheus %s, selector %s, window %s (%s to %s, %s of history)", o.URL, o.Selector, o.Window,
		o.Start.UTC().Format(time.RFC3339), o.End.UTC().Format(time.RFC3339), time.Duration(o.HistorySec*float64(time.Second)).Round(time.Minute))
	if o.File != "" {
		from = fmt.Sprintf("file %s, derived from %s", o.File, from)
	}
	fmt.Fprintf(out, "Workload derived from the served traffic\n  source:       %s\n", from)
	if len(o.Targets) > 0 {
		fmt.Fprintf(out, "  targets:      %s\n", strings.Join(o.Targets, ", "))
	}
	fmt.Fprintf(out, "  requests:     %.0f finished in the window, mean rate %.3f req/s\n", o.Requests, w.RequestRate)
	fmt.Fprintf(out, "  input tokens: %s\n  output tokens: %s\n", w.Input.Summary(), w.Output.Summary())
	fmt.Fprintf(out, "  burstiness:   %s\n", w.Burstiness.Describe())
	if h := w.PrefixCacheHitRate; h != nil {
		fmt.Fprintf(out, "  prefix cache: %.1f%% of prompt tokens hit → %d-token shared prefix\n", 100**h, w.PrefixTokens)
	} else {
		fmt.Fprintln(out, "  prefix cache: no counters from the server; no shared prefix")
	}
	for _, n := range w.Notes {
		fmt.Fprintf(out, "  note: %s\n", n)
	}
}

// ErrNoTraffic is returned when the window holds too few requests.
var ErrNoTraffic = errors.New("too few requests to derive a workload")
