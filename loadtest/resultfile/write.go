package resultfile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// JSONOut spools per-request results to temporary files during a run, so
// that memory stays flat however many requests there are, and writes the
// result file at the end: aggregate keys first, then vllm bench's
// per-request arrays (input_lens, output_lens, ttfts, itls, latencies,
// start_times since the run started, generated_texts if asked, errors;
// in seconds, measured requests only) and "requests", every request in
// completion order with its schedule, timings, tokens and error.
type JSONOut struct {
	// GeneratedTexts adds vllm bench's generated_texts (each measured
	// request's output text, as the prober keeps it): off by default, as
	// it makes the file as large as everything the server wrote.
	GeneratedTexts bool

	dir    string
	spools []*spool // by spool index below
	err    error
}

const (
	spInputLens = iota
	spOutputLens
	spTTFTs
	spITLs
	spLatencies
	spStartTimes
	spTexts
	spErrors
	spRequests
	numSpools
)

var spoolKeys = [numSpools]string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
	"generated_texts", "errors", "requests"}

type spool struct {
	f *os.File
	w *bufio.Writer
	n int
}

// NewJSONOut creates the spool files in the system's temporary directory.
func NewJSONOut() (*JSONOut, error) {
	dir, err := os.MkdirTemp("", "llm-prober-bench-")
	if err != nil {
		return nil, err
	}
	j := &JSONOut{dir: dir}
	for i := range numSpools {
		f, err := os.Create(filepath.Join(dir, spoolKeys[i]))
		if err != nil {
			j.Close()
			return nil, err
		}
		j.spools = append(j.spools, &spool{f: f, w: bufio.NewWriterSize(f, 64<<10)})
	}
	return j, nil
}

// item appends one raw JSON value to spool i.
func (j *JSONOut) item(i int, raw []byte) {
	s := j.spools[i]
	if s.n > 0 {
		s.w.WriteByte(',')
	}
	if i == spRequests {
		s.w.WriteByte('\n')
	}
	if _, err := s.w.Write(raw); err != nil && j.err == nil {
		j.err = err
	}
	s.n++
}

// requestJSON is one entry of "requests"; times in seconds since the run
// started, latencies in seconds like vllm bench's arrays.
type requestJSON struct {
	Index        int64     `json:"index"`
	Warmup       bool      `json:"warmup,omitempty"`
	Planned      float64   `json:"planned_s"`
	Start        float64   `json:"start_s"`
	End          float64   `json:"end_s"`                 // when the client finished with it (bench merge)
	SlotWaited   bool      `json:"slot_waited,omitempty"` // queued for a --max-concurrency slot
	Turn         int16     `json:"turn,omitempty"`        // of a multi-turn session
	TTFT         float64   `json:"ttft"`
	TPOT         float64   `json:"tpot"`
	E2EL         float64   `json:"latency"`
	ITLs         []float64 `json:"itls"`
	MaxITL       float64   `json:"max_itl"` // worst gap (s), the open one at a failure while decoding
	PromptLen    int32     `json:"prompt_len"`
	OutputLen    int32     `json:"output_len"` // planned (max_tokens)
	PromptTokens int32     `json:"prompt_tokens"`
	CachedTokens int32     `json:"cached_tokens"`
	OutputTokens int32     `json:"output_tokens"`
	Success      bool      `json:"success"`
	Reason       string    `json:"reason,omitempty"`
	Error        string    `json:"error"`
}

// Add records one finished request (Options.OnResult).
func (j *JSONOut) Add(rec *loadtest.Record, res *prober.Result) {
	itls := make([]float64, len(res.ITL))
	for i, g := range res.ITL {
		itls[i] = g.Seconds()
	}
	errMsg := ""
	if res.Err != nil {
		errMsg = res.Err.Error()
	}
	r := requestJSON{Index: rec.Index, Warmup: rec.Warmup, Planned: sec(rec.Planned), Start: sec(rec.Start), End: sec(rec.End), SlotWaited: rec.SlotWaited, Turn: rec.Turn,
		TTFT: sec(rec.TTFT), TPOT: sec(rec.TPOT), E2EL: sec(rec.E2EL), ITLs: itls, MaxITL: rec.MaxITL().Seconds(),
		PromptLen: rec.PlannedPrompt, OutputLen: rec.PlannedOutput, PromptTokens: rec.PromptTokens, CachedTokens: rec.CachedTokens,
		OutputTokens: rec.OutputTokens, Success: rec.Success(), Reason: string(rec.Reason), Error: errMsg}
	b, _ := json.Marshal(r)
	j.item(spRequests, b)
	if rec.Warmup {
		return
	}
	j.item(spInputLens, strconv.AppendInt(nil, int64(rec.PlannedPrompt), 10))
	j.item(spOutputLens, strconv.AppendInt(nil, int64(rec.OutputTokens), 10))
	j.item(spTTFTs, strconv.AppendFloat(nil, sec(rec.TTFT), 'g', -1, 64))
	b, _ = json.Marshal(itls)
	j.item(spITLs, b)
	j.item(spLatencies, strconv.AppendFloat(nil, sec(rec.E2EL), 'g', -1, 64))
	j.item(spStartTimes, strconv.AppendFloat(nil, sec(rec.Start), 'g', -1, 64))
	if j.GeneratedTexts {
		b, _ = json.Marshal(res.Output)
		j.item(spTexts, b)
	}
	b, _ = json.Marshal(errMsg)
	j.item(spErrors, b)
}

func sec(ns int64) float64 { return float64(ns) / 1e9 }

// Write writes the result file: head (the aggregate) then the spools.
func (j *JSONOut) Write(path string, head []summary.KV) error {
	if j.err != nil {
		return fmt.Errorf("spooling per-request results: %w", j.err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString("{")
	for i, kv := range head {
		if i > 0 {
			w.WriteString(",")
		}
		k, _ := json.Marshal(kv.Key)
		v, err := json.Marshal(kv.Value)
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", kv.Key, err)
		}
		fmt.Fprintf(w, "\n  %s: %s", k, v)
	}
	for i, s := range j.spools {
		if i == spTexts && !j.GeneratedTexts {
			continue
		}
		if err := s.w.Flush(); err != nil {
			f.Close()
			return err
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return err
		}
		fmt.Fprintf(w, ",\n  %q: [", spoolKeys[i])
		if _, err := io.Copy(w, s.f); err != nil {
			f.Close()
			return err
		}
		w.WriteString("]")
	}
	w.WriteString("\n}\n")
	return errors.Join(w.Flush(), f.Close())
}

// Close removes the spool files.
func (j *JSONOut) Close() {
	for _, s := range j.spools {
		s.f.Close()
	}
	os.RemoveAll(j.dir)
}
