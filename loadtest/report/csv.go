package report

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prober"
)

// CSVOut writes one row per finished request (Options.OnResult) as the
// run goes: RFC 4180 through encoding/csv over a buffered file, so memory
// stays flat however many requests. A sweep's points share one file,
// told apart by the point and rate columns.
type CSVOut struct {
	f   *os.File
	w   *csv.Writer
	row []string
	// Point and Rate fill the first two columns: the sweep point's kind
	// ("" for a single run) and the open-loop rate asked for ("inf" for
	// all at once, "" for a closed loop).
	Point, Rate string
}

// csvHeader names the columns: the fields of --output-json's "requests"
// with latencies in milliseconds, the inter-token gaps summarised
// (itl_max_ms is the request's worst gap, max_itl: with the gap still
// open when a request failed or was cut off while decoding); turn
// (a multi-turn session's, from 1) is last, so that earlier readers of the
// file keep their columns.
var csvHeader = []string{"point", "rate", "index", "warmup", "planned_s", "start_s", "send_lag_ms",
	"ttft_ms", "tpot_ms", "itl_mean_ms", "itl_max_ms", "itl_count", "e2el_ms",
	"prompt_len", "prompt_tokens", "cached_tokens", "output_tokens", "success", "reason", "error", "turn"}

// CreateCSV creates path and writes the header.
func CreateCSV(path string) (*CSVOut, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &CSVOut{f: f, w: csv.NewWriter(f), row: make([]string, len(csvHeader))}
	if err := c.w.Write(csvHeader); err != nil {
		f.Close()
		return nil, err
	}
	return c, nil
}

// RateText is the rate column for options o.
func RateText(o *loadtest.Options) string {
	switch {
	case o.ClosedLoop():
		return ""
	case o.Ramp != nil:
		return o.Ramp.Strategy + ":" + strconv.FormatFloat(o.Ramp.Start, 'g', -1, 64) + "-" + strconv.FormatFloat(o.Ramp.End, 'g', -1, 64)
	case o.Timeline() != nil:
		return "trace"
	case math.IsInf(o.Rate, 1):
		return "inf"
	}
	return strconv.FormatFloat(o.Rate, 'g', -1, 64)
}

// Add writes one request's row (Options.OnResult). A write error is kept
// for Flush: csv.Writer's error is sticky.
func (c *CSVOut) Add(rec *loadtest.Record, res *prober.Result) {
	var sum time.Duration
	for _, g := range res.ITL {
		sum += g
	}
	itlMean := ""
	if n := len(res.ITL); n > 0 {
		itlMean = msText(int64(sum) / int64(n))
	}
	errMsg := ""
	if res.Err != nil {
		errMsg = res.Err.Error()
	}
	r := c.row[:0]
	r = append(r, c.Point, c.Rate, strconv.FormatInt(rec.Index, 10), strconv.FormatBool(rec.Warmup),
		secText(rec.Planned), secText(rec.Start), msText(rec.Start-rec.Planned),
		msText(rec.TTFT), msText(rec.TPOT), itlMean, msText(int64(rec.MaxITL())), strconv.Itoa(len(res.ITL)), msText(rec.E2EL),
		itoa32(rec.PlannedPrompt), itoa32(rec.PromptTokens), itoa32(rec.CachedTokens), itoa32(rec.OutputTokens),
		strconv.FormatBool(rec.Success()), string(rec.Reason), errMsg, turnText(rec.Turn))
	_ = c.w.Write(r) // sticky: Flush reports it
}

// turnText is a request's turn, empty outside multi-turn sessions.
func turnText(t int16) string {
	if t == 0 {
		return ""
	}
	return strconv.Itoa(int(t))
}

func msText(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', -1, 64) }

func secText(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64) }

func itoa32(n int32) string { return strconv.FormatInt(int64(n), 10) }

// Flush writes what is buffered and reports the first write error.
func (c *CSVOut) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// Close flushes and closes the file.
func (c *CSVOut) Close() error {
	return errors.Join(c.Flush(), c.f.Close())
}
