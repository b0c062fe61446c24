package resultfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prober"
)

// MaxHeadKey bounds one aggregate key's JSON (the server's report with
// its series is the largest): a hostile file cannot make one value cost
// more than this.
const MaxHeadKey = 32 << 20

// maxHead bounds all aggregate keys together.
const maxHead = 64 << 20

// RecordFile is a result file read back whole (bench merge): its
// aggregate keys as raw JSON, and a count of its requests, each handed to
// the caller as it is decoded so that memory is the caller's.
type RecordFile struct {
	Path     string
	Head     map[string]json.RawMessage
	Requests int
}

// RecordFunc gets each request: the record (times in ns since the run's
// origin), its inter-token gaps and its error message.
type RecordFunc func(rec *loadtest.Record, itl []time.Duration, errMsg string) error

// ReadRecords reads path's aggregate keys and every entry of "requests"
// as a loadtest.Record: at most maxRequests of them, each key's value
// within MaxHeadKey, every number checked; ctx bounds the whole decoding.
func ReadRecords(ctx context.Context, path string, add RecordFunc) (*RecordFile, error) {
	return ReadRecordsBuffered(ctx, path, 256<<10, add)
}

// ReadRecordsBuffered is ReadRecords reading through a buffer of bufSize
// bytes: a reader of many files at once (bench merge's merged file)
// keeps its memory by taking less for each.
func ReadRecordsBuffered(ctx context.Context, path string, bufSize int, add RecordFunc) (*RecordFile, error) {
	var rf *RecordFile
	err := decodeFile(ctx, path, bufSize, func(r io.Reader) (err error) {
		rf, err = readRecords(ctx, r, add)
		return err
	})
	if err != nil {
		return nil, err
	}
	rf.Path = path
	return rf, nil
}

func readRecords(ctx context.Context, r io.Reader, add RecordFunc) (*RecordFile, error) {
	dec := json.NewDecoder(r)
	rf := &RecordFile{Head: map[string]json.RawMessage{}}
	sawRequests := false
	err := walkRun(dec, func() (err error) {
		sawRequests = true
		rf.Requests, err = decodeRecords(ctx, dec, add)
		return err
	}, func(key string, raw json.RawMessage) bool {
		rf.Head[key] = raw
		return false
	})
	if err != nil {
		return nil, err
	}
	if !sawRequests {
		return nil, errors.New(`no "requests": not a bench --output-json file`)
	}
	return rf, nil
}

// fullRequest is a "requests" entry as bench writes it.
type fullRequest struct {
	Index        int64     `json:"index"`
	Warmup       bool      `json:"warmup"`
	Planned      float64   `json:"planned_s"`
	Start        float64   `json:"start_s"`
	End          *float64  `json:"end_s"`
	SlotWaited   bool      `json:"slot_waited"`
	Turn         int16     `json:"turn"`
	TTFT         float64   `json:"ttft"`
	TPOT         float64   `json:"tpot"`
	E2EL         float64   `json:"latency"`
	ITLs         []float64 `json:"itls"`
	MaxITL       *float64  `json:"max_itl"`
	PromptLen    int32     `json:"prompt_len"`
	OutputLen    int32     `json:"output_len"`
	PromptTokens int32     `json:"prompt_tokens"`
	CachedTokens int32     `json:"cached_tokens"`
	OutputTokens int32     `json:"output_tokens"`
	Success      bool      `json:"success"`
	Reason       string    `json:"reason"`
	Error        string    `json:"error"`
}

// maxSeconds bounds any time in a file: a week, far beyond a run, far
// below int64 nanoseconds' range.
const maxSeconds = 7 * 24 * 3600

func decodeRecords(ctx context.Context, dec *json.Decoder, add RecordFunc) (int, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return 0, errors.New("want an array")
	}
	n := 0
	var q fullRequest
	var itl []time.Duration
	for dec.More() {
		if n >= maxRequests {
			return 0, fmt.Errorf("more than %d requests: bench writes at most that many", maxRequests)
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		q = fullRequest{}
		if err := dec.Decode(&q); err != nil {
			return 0, fmt.Errorf("entry %d: %w", n, err)
		}
		rec, err := q.record()
		if err != nil {
			return 0, fmt.Errorf("entry %d: %w", n, err)
		}
		itl = itl[:0]
		for _, g := range q.ITLs {
			if !(g >= 0 && g <= maxSeconds) {
				return 0, fmt.Errorf("entry %d: itls: %g s is not a gap", n, g)
			}
			itl = append(itl, time.Duration(nanos(g)))
		}
		rec.ITLCount = int32(len(itl))
		if rec.MaxGapUs, err = maxGapUs(q.MaxITL, q.ITLs); err != nil {
			return 0, fmt.Errorf("entry %d: %w", n, err)
		}
		if err := add(&rec, itl, q.Error); err != nil {
			return 0, fmt.Errorf("entry %d: %w", n, err)
		}
		n++
	}
	_, err := dec.Token()
	return n, err
}

// record checks q's numbers and converts it.
func (q *fullRequest) record() (loadtest.Record, error) {
	end := q.Start
	if q.End != nil {
		end = *q.End
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"planned_s", q.Planned}, {"start_s", q.Start}, {"end_s", end}, {"ttft", q.TTFT}, {"tpot", q.TPOT}, {"latency", q.E2EL}} {
		if !(v.x >= -maxSeconds && v.x <= maxSeconds) {
			return loadtest.Record{}, fmt.Errorf("%s: %g is out of range", v.name, v.x)
		}
	}
	if q.Index < 0 || q.PromptLen < 0 || q.OutputLen < 0 || q.PromptTokens < 0 || q.CachedTokens < 0 || q.OutputTokens < 0 || q.Turn < 0 {
		return loadtest.Record{}, errors.New("a negative index, turn or token count")
	}
	reason := prober.Reason(q.Reason)
	if q.Success {
		reason = prober.ReasonNone
	} else if reason == prober.ReasonNone {
		return loadtest.Record{}, errors.New(`a failed request without a "reason"`)
	}
	return loadtest.Record{Index: q.Index, Planned: nanos(q.Planned), Start: nanos(q.Start), End: nanos(end),
		TTFT: nanos(q.TTFT), TPOT: nanos(q.TPOT), E2EL: nanos(q.E2EL),
		PlannedPrompt: q.PromptLen, PromptTokens: q.PromptTokens, CachedTokens: q.CachedTokens,
		PlannedOutput: q.OutputLen, OutputTokens: q.OutputTokens, Reason: reason, Warmup: q.Warmup,
		SlotWaited: q.SlotWaited, Turn: q.Turn}, nil
}
