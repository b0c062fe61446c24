package resultfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/llm-prober/llm-prober/internal/safefile"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// RunFile is what `bench compare` reads of one --output-json file: the
// aggregate's scalar keys and, per measured request, what the
// significance tests need. Only the requests are kept per request, so a
// million-request file costs tens of MB, not its size on disk.
type RunFile struct {
	Path string
	Keys map[string]any // scalar aggregate keys (numbers, strings)
	// Per measured (not warm-up) request, in milliseconds: TTFT and E2EL
	// of each successful request, TPOT of those with more than one
	// output token, the mean inter-token gap of those with gaps, and
	// the worst gap (max_itl) of those with gaps, as Summarize keeps it.
	TTFT, TPOT, E2EL, ITLMean, MaxITL []float64
	// Gaps holds every inter-token gap (ms) of the requests with gaps,
	// request after request; GapCounts how many each had: the tail of
	// the gaps is compared on the gaps, not on per-request means.
	Gaps      []float32
	GapCounts []int32
	// SendLag is each measured request's send lag (ms): how late the
	// client sent it against its schedule.
	SendLag []float64
	// GapsDropped: the file held over MaxGaps gaps, so none were kept
	// (memory stays bounded) and the ITL rows go untested.
	GapsDropped            bool
	Measured, Failed, Good int
	SLO                    summary.SLO
}

// fileRequest is the part of a "requests" entry compare reads.
type fileRequest struct {
	Warmup       bool      `json:"warmup"`
	TTFT         float64   `json:"ttft"`
	TPOT         float64   `json:"tpot"`
	E2EL         float64   `json:"latency"`
	ITLs         []float64 `json:"itls"`
	MaxITL       *float64  `json:"max_itl"`
	Planned      float64   `json:"planned_s"`
	Start        float64   `json:"start_s"`
	PromptLen    int32     `json:"prompt_len"`
	OutputLen    int32     `json:"output_len"` // planned
	PromptTokens int32     `json:"prompt_tokens"`
	OutputTokens int32     `json:"output_tokens"`
	Success      bool      `json:"success"`
}

// ReadRunFile reads a single run's --output-json file.
func ReadRunFile(path string) (*RunFile, error) {
	// Streamed: the requests cap bounds memory, a FIFO is refused.
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rf, err := readRunFile(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rf.Path = path
	return rf, nil
}

func readRunFile(r io.Reader) (*RunFile, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a bench --output-json file (want a JSON object)")
	}
	rf := &RunFile{Keys: map[string]any{}}
	sawRequests, dropped := false, false
	var reqs []requestSummary
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		switch key {
		case "points":
			return nil, errors.New("a sweep's file: compare single runs (each point's run, or --request-rate at the rate to check)")
		case "num_runs":
			return nil, errors.New("a --num-runs summary: compare its runs' files (FILE.run1.json, …)")
		case "requests":
			sawRequests = true
			if reqs, dropped, err = readRequests(dec); err != nil {
				return nil, fmt.Errorf("requests: %w", err)
			}
			continue
		}
		if spoolKey(key) {
			err = skipArray(dec)
		} else {
			var v any
			if err = dec.Decode(&v); err == nil {
				if n, ok := v.(json.Number); ok {
					v, _ = n.Float64()
				}
				rf.Keys[key] = v
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if !sawRequests {
		return nil, errors.New(`no "requests": written by an llm-prober older than compare, or not by bench --output-json`)
	}
	rf.SLO, _ = summary.ParseSLO(rf.String("llm_prober_goodput_slo"))
	// The run counted outputs cut short only under ignore_eos, and then
	// judged them not good: so does compare (a count of 0 leaves none to
	// judge either way).
	if rf.Float("llm_prober_cut_short_requests") > 0 {
		rf.SLO = rf.SLO.Pinned()
	}
	// A run whose requests waited in the client (a concurrency slot, a
	// late generator) judged its latency from the schedule: so does compare.
	fromSchedule := rf.String("llm_prober_latency_basis") == summary.BasisSchedule
	for i := range reqs {
		if !fromSchedule {
			reqs[i].wait = 0
		}
		rf.Add(&reqs[i])
	}
	if rf.GapsDropped = dropped; dropped {
		rf.Gaps, rf.GapCounts = nil, nil
	}
	return rf, nil
}

// MaxGaps is the most inter-token gaps a file's requests may hold for
// compare to keep them (4 bytes each).
var MaxGaps = 64 << 20

// requestSummary is what compare keeps of a measured request (the
// aggregate keys, and so the SLO, may come after "requests").
type requestSummary struct {
	ttft, tpot, e2el, itlMean float64 // seconds; itlMean NaN without gaps
	wait                      float64 // seconds from the planned send to the send
	lag                       float64 // the same, kept when wait is not counted
	gaps                      []float32
	maxGapUs                  int32 // Record.MaxGapUs
	promptLen, promptTokens   int32 // planned and counted: a per-token TTFT objective reads them
	outputLen, outputTokens   int32 // planned and counted: a cut-short output reads them
	success                   bool
}

// readRequests decodes the "requests" array one entry at a time.
// maxRequests caps the requests a result file may hold (about 60 bytes
// each once read): ten times what bench's engine keeps in a run. A
// variable: tests lower it.
var maxRequests = 10_000_000

// Past MaxGaps gaps it keeps none (dropped).
func readRequests(dec *json.Decoder) (out []requestSummary, dropped bool, err error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, false, errors.New("want an array")
	}
	kept := 0
	for dec.More() {
		if len(out) >= maxRequests {
			return nil, false, fmt.Errorf("more than %d requests: bench writes at most that many", maxRequests)
		}
		var q fileRequest
		if err := dec.Decode(&q); err != nil {
			return nil, false, err
		}
		if !q.Warmup {
			gapUs, err := maxGapUs(q.MaxITL, q.ITLs)
			if err != nil {
				return nil, false, fmt.Errorf("entry %d: %w", len(out), err)
			}
			lag := max(q.Start-q.Planned, 0)
			var gaps []float32
			if kept += len(q.ITLs); kept <= MaxGaps {
				gaps = make([]float32, len(q.ITLs))
				for i, g := range q.ITLs {
					gaps[i] = float32(g * 1e3)
				}
			}
			out = append(out, requestSummary{q.TTFT, q.TPOT, q.E2EL, mean(q.ITLs), lag, lag, gaps, gapUs,
				max(q.PromptLen, 0), max(q.PromptTokens, 0), max(q.OutputLen, 0), q.OutputTokens, q.Success})
		}
	}
	_, err = dec.Token()
	return out, kept > MaxGaps, err
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Add counts one measured request as Summarize does.
func (rf *RunFile) Add(q *requestSummary) {
	rf.Measured++
	rf.SendLag = append(rf.SendLag, q.lag*1e3)
	if !q.success {
		rf.Failed++
		return
	}
	rec := loadtest.Record{TTFT: nanos(q.ttft), TPOT: nanos(q.tpot), E2EL: nanos(q.e2el), MaxGapUs: q.maxGapUs,
		PlannedPrompt: q.promptLen, PromptTokens: q.promptTokens, PlannedOutput: q.outputLen, OutputTokens: q.outputTokens}
	if summary.Good(&rec, rf.SLO, nanos(q.wait)) {
		rf.Good++
	}
	rf.TTFT = append(rf.TTFT, (q.ttft+q.wait)*1e3)
	rf.E2EL = append(rf.E2EL, (q.e2el+q.wait)*1e3)
	if q.outputTokens > 1 {
		rf.TPOT = append(rf.TPOT, q.tpot*1e3)
	}
	if !math.IsNaN(q.itlMean) {
		rf.ITLMean = append(rf.ITLMean, q.itlMean*1e3)
		rf.MaxITL = append(rf.MaxITL, float64(rec.MaxITL())/1e6)
		rf.Gaps = append(rf.Gaps, q.gaps...)
		rf.GapCounts = append(rf.GapCounts, int32(len(q.gaps)))
	}
}

func nanos(sec float64) int64 { return int64(math.Round(sec * 1e9)) }

// spoolKey reports whether k is one of vllm bench's per-request arrays,
// which compare skips (it reads "requests").
func spoolKey(k string) bool {
	for i, sk := range spoolKeys {
		if i != spRequests && sk == k {
			return true
		}
	}
	return false
}

// skipArray skips an array element by element, so memory stays bounded
// by one element however long the array.
func skipArray(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return errors.New("want an array")
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// Float is aggregate key k as a number, NaN if absent or not a number.
func (rf *RunFile) Float(k string) float64 {
	if v, ok := rf.Keys[k].(float64); ok {
		return v
	}
	return math.NaN()
}

// String is aggregate key k as text ("" if absent; numbers formatted).
func (rf *RunFile) String(k string) string {
	switch v := rf.Keys[k].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// seedSuffix ends a synthetic workload's description: runs with
// different seeds (--num-runs) are the same workload.
var seedSuffix = regexp.MustCompile(`, seed -?\d+$`)

// WorkloadDiffs lists the settings in which a and b differ, as
// "key: a vs b".
func WorkloadDiffs(a, b *RunFile) []string {
	var out []string
	for _, k := range summary.WorkloadKeys {
		va, vb := a.String(k), b.String(k)
		same := va == vb
		if k == "llm_prober_workload" {
			same = seedSuffix.ReplaceAllString(va, "") == seedSuffix.ReplaceAllString(vb, "")
		}
		if !same {
			out = append(out, fmt.Sprintf("%s: %s vs %s", k, quoteEmpty(va), quoteEmpty(vb)))
		}
	}
	return out
}

// infoKeys may differ between compared runs (an upgrade may rename the
// model), but the output says so.
var infoKeys = []string{"model_id"}

// InfoDiffs lists the infoKeys in which a and b differ.
func InfoDiffs(a, b *RunFile) []string {
	var out []string
	for _, k := range infoKeys {
		if va, vb := a.String(k), b.String(k); va != vb {
			out = append(out, fmt.Sprintf("%s: %s vs %s", k, quoteEmpty(va), quoteEmpty(vb)))
		}
	}
	return out
}

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Has reports whether rf can have metric key (CompareKeys) at all:
// goodput needs SLOs, an ITL percentile or a throughput its aggregate key
// (not a worst gap's: compare computes those from the requests);
// the others come from the requests (and are missing only when none
// succeeded).
func (rf *RunFile) Has(key string) bool {
	switch {
	case key == "goodput":
		return rf.SLO.Set()
	case strings.HasSuffix(key, "_max_itl_ms"): // from the requests
		return true
	case strings.HasSuffix(key, "_itl_ms"), strings.HasSuffix(key, "_throughput"):
		_, ok := rf.Keys[key].(float64)
		return ok
	}
	return true
}
