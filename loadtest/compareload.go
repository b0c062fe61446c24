package loadtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
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
	// output token, the mean inter-token gap of those with gaps.
	TTFT, TPOT, E2EL, ITLMean []float64
	Measured, Failed, Good    int
	SLO                       SLO
}

// fileRequest is the part of a "requests" entry compare reads.
type fileRequest struct {
	Warmup       bool      `json:"warmup"`
	TTFT         float64   `json:"ttft"`
	TPOT         float64   `json:"tpot"`
	E2EL         float64   `json:"latency"`
	ITLs         []float64 `json:"itls"`
	OutputTokens int32     `json:"output_tokens"`
	Success      bool      `json:"success"`
}

// ReadRunFile reads a single run's --output-json file.
func ReadRunFile(path string) (*RunFile, error) {
	f, err := os.Open(path)
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
	sawRequests := false
	var reqs []fileRequest
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		switch key {
		case "points":
			return nil, errors.New("a sweep's file: compare single runs (each point's run, or --request-rate at the rate to check)")
		case "requests":
			sawRequests = true
			if reqs, err = readRequests(dec, rf); err != nil {
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
	rf.SLO, _ = ParseSLO(rf.String("llm_prober_goodput_slo"))
	for i := range reqs {
		rf.add(&reqs[i])
	}
	return rf, nil
}

// readRequests decodes the "requests" array one entry at a time.
func readRequests(dec *json.Decoder, rf *RunFile) ([]fileRequest, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errors.New("want an array")
	}
	var out []fileRequest
	for dec.More() {
		var q fileRequest
		if err := dec.Decode(&q); err != nil {
			return nil, err
		}
		if q.Warmup {
			continue
		}
		q.ITLs = []float64{mean(q.ITLs)} // keep one number, not every gap
		out = append(out, q)
	}
	_, err := dec.Token()
	return out, err
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

// add counts one measured request as Summarize does.
func (rf *RunFile) add(q *fileRequest) {
	rf.Measured++
	if !q.Success {
		rf.Failed++
		return
	}
	rec := Record{TTFT: int64(q.TTFT * 1e9), TPOT: int64(q.TPOT * 1e9), E2EL: int64(q.E2EL * 1e9)}
	if rec.good(rf.SLO) {
		rf.Good++
	}
	rf.TTFT = append(rf.TTFT, q.TTFT*1e3)
	rf.E2EL = append(rf.E2EL, q.E2EL*1e3)
	if q.OutputTokens > 1 {
		rf.TPOT = append(rf.TPOT, q.TPOT*1e3)
	}
	if m := q.ITLs[0]; !math.IsNaN(m) {
		rf.ITLMean = append(rf.ITLMean, m*1e3)
	}
}

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

// workloadKeys are the settings two runs must share to be compared:
// what is sent (prompt and output lengths, dataset), where (endpoint),
// how (load), and what counts as good.
var workloadKeys = []string{"llm_prober_workload", "backend", "llm_prober_mode", "request_rate", "burstiness",
	"max_concurrency", "llm_prober_goodput_slo"}

// WorkloadDiffs lists the settings in which a and b differ, as
// "key: a vs b".
func WorkloadDiffs(a, b *RunFile) []string {
	var out []string
	for _, k := range workloadKeys {
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

func quoteEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
