package promsource

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/internal/jsonscan"
)

// Caps of a decoded answer besides its byte and memory budgets.
const (
	// maxSeriesPoints: Prometheus refuses a range query of more than
	// 11,000 points a series, so a longer series is no real answer.
	maxSeriesPoints = 11_000
	maxLabels       = 128  // labels of one series
	maxLabelValue   = 4096 // bytes of one label value
	maxNotes        = 16   // warnings and infos kept
	maxNoteBytes    = 1024 // bytes kept of each, and of an error message
)

// Bytes charged against the memory budget for what the decoder
// allocates (Go's sizes, rounded up, maps and slice growth included):
// the budget bounds all it allocates, garbage too, not only what it keeps.
const (
	seriesCost = 512 // a series: its struct and its label map
	labelCost  = 64  // a label's map slot, besides its bytes
	sampleCost = 48  // a vector's *Sample and its slot
)

// errBudget: the decoded answer would take more memory than allowed.
var errBudget = errors.New("over the memory budget")

// decodeAnswer reads a query API answer ({"status", "data": {"resultType",
// "result"}, "errorType", "error", "warnings", "infos"}) from r, a byte at
// a time: client_golang reads the whole body and then decodes it into a
// second copy (a 64 MiB answer peaked at 306 MB RSS); this keeps only the
// decoded value, and refuses one whose allocations pass budget bytes.
// Native histograms are refused (no query of ours asks for one).
func decodeAnswer(r io.Reader, budget int64) (model.Value, v1.Warnings, v1.Infos, error) {
	d := &answerDecoder{s: jsonscan.New(r, math.MaxInt64), left: budget, budget: budget}
	v, err := d.answer()
	if err != nil {
		return nil, d.warnings, d.infos, d.wrap(err)
	}
	return v, d.warnings, d.infos, nil
}

type answerDecoder struct {
	s            *jsonscan.Scanner
	left, budget int64
	warnings     v1.Warnings
	infos        v1.Infos
	// What the answer holds, in any key order.
	status, errorType, errorMsg string
	resultType                  string
	hasData                     bool
	res                         result
}

// result is "result" decoded by its shape: resultType may come after it.
type result struct {
	vector model.Vector
	matrix model.Matrix
	scalar *model.Scalar
	seen   bool
}

func (d *answerDecoder) wrap(err error) error {
	var se *jsonscan.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("answered bad JSON at line %d: %s", se.Line, se.Msg)
	case errors.Is(err, jsonscan.ErrEnd):
		return errors.New("answered JSON that ends early")
	case errors.Is(err, errBudget):
		return fmt.Errorf("%w: the answer decodes to more than %d bytes of memory (--prometheus.max-response-bytes)", ErrTooLarge, d.budget)
	}
	return err
}

// charge takes n bytes from the budget.
func (d *answerDecoder) charge(n int64) error {
	if d.left -= n; d.left < 0 {
		return errBudget
	}
	return nil
}

func (d *answerDecoder) answer() (model.Value, error) {
	s := d.s
	c, err := s.NonSpace()
	if err != nil {
		return nil, err
	}
	if c != '{' {
		return nil, s.Syntax("want an object, got %q", c)
	}
	err = s.Object(func(key string, c byte) error {
		switch key {
		case "status":
			return d.str(&d.status, c, 32)
		case "errorType":
			return d.str(&d.errorType, c, 64)
		case "error":
			return d.str(&d.errorMsg, c, maxNoteBytes)
		case "warnings":
			return d.notes((*[]string)(&d.warnings), c)
		case "infos":
			return d.notes((*[]string)(&d.infos), c)
		case "data":
			if c == 'n' {
				return s.Skip(c)
			}
			if c != '{' {
				return s.Syntax("data: want an object")
			}
			d.hasData = true
			return s.Object(func(key string, c byte) error {
				switch key {
				case "resultType":
					return d.str(&d.resultType, c, 32)
				case "result":
					return d.result(c)
				}
				return s.Skip(c)
			})
		}
		return s.Skip(c)
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return nil, err
	}
	return d.value()
}

// value checks the answer's parts agree and returns its value.
func (d *answerDecoder) value() (model.Value, error) {
	switch {
	case d.status == "error":
		return nil, &v1.Error{Type: v1.ErrorType(d.errorType), Msg: d.errorMsg}
	case d.status != "success":
		return nil, fmt.Errorf("answered status %q, want success or error", d.status)
	case !d.hasData || !d.res.seen:
		return nil, nil // no result at all: the caller names the query
	}
	r := d.res
	switch d.resultType {
	case "vector":
		if r.matrix != nil || r.scalar != nil {
			return nil, errors.New("answered resultType vector with a matrix or scalar result")
		}
		if r.vector == nil {
			r.vector = model.Vector{}
		}
		return r.vector, nil
	case "matrix":
		if r.vector != nil || r.scalar != nil {
			return nil, errors.New("answered resultType matrix with a vector or scalar result")
		}
		if r.matrix == nil {
			r.matrix = model.Matrix{}
		}
		return r.matrix, nil
	case "scalar":
		if r.scalar == nil {
			return nil, errors.New("answered resultType scalar without a scalar")
		}
		return r.scalar, nil
	}
	return nil, fmt.Errorf("answered resultType %q, want vector, matrix or scalar", d.resultType)
}

// str reads a string of at most keep bytes into *dst.
func (d *answerDecoder) str(dst *string, c byte, keep int) error {
	if c != '"' {
		return d.s.Syntax("want a string, got %q", c)
	}
	v, err := d.s.Str(keep)
	*dst = v
	return err
}

// notes keeps the first maxNotes warnings or infos, cut to maxNoteBytes.
func (d *answerDecoder) notes(dst *[]string, c byte) error {
	if c == 'n' {
		return d.s.Skip(c)
	}
	if c != '[' {
		return d.s.Syntax("want an array of strings")
	}
	return d.s.Array(func(i int, c byte) error {
		var v string
		if err := d.str(&v, c, maxNoteBytes); err != nil || i >= maxNotes {
			return err
		}
		*dst = append(*dst, v)
		return nil
	})
}

// result reads "result": a scalar [ts, "v"], or an array of series.
func (d *answerDecoder) result(c byte) error {
	s := d.s
	if d.res.seen {
		return s.Syntax("a second result")
	}
	d.res.seen = true
	if c != '[' {
		return s.Syntax("result: want an array")
	}
	scalar := false
	err := s.Array(func(i int, c byte) error {
		switch {
		case i == 0 && c != '{' && c != '[':
			scalar = true
			ts, err := d.timestamp(c)
			if err != nil {
				return err
			}
			d.res.scalar = &model.Scalar{Timestamp: ts}
			return nil
		case scalar && i == 1:
			v, err := d.sampleValue(c)
			d.res.scalar.Value = v
			return err
		case scalar:
			return s.Syntax("a scalar of more than two elements")
		case c != '{':
			return s.Syntax("result[%d]: want an object", i)
		}
		return d.series(i)
	})
	if err == nil && scalar && d.res.scalar == nil {
		err = s.Syntax("a scalar without its value")
	}
	return err
}

// series reads one element of a vector or a matrix.
func (d *answerDecoder) series(i int) error {
	s := d.s
	if err := d.charge(seriesCost); err != nil {
		return err
	}
	var metric model.Metric
	var sample *model.Sample
	var stream *model.SampleStream
	err := s.Object(func(key string, c byte) error {
		switch key {
		case "metric":
			m, err := d.metric(c)
			metric = m
			return err
		case "value":
			if sample != nil || stream != nil {
				return s.Syntax("result[%d]: a second value", i)
			}
			sample = &model.Sample{}
			return d.pair(c, &sample.Timestamp, &sample.Value)
		case "values":
			if sample != nil || stream != nil {
				return s.Syntax("result[%d]: a second values", i)
			}
			stream = &model.SampleStream{}
			return d.values(c, stream)
		case "histogram", "histograms":
			return errors.New("answered a native histogram, want numbers")
		}
		return s.Skip(c)
	})
	switch {
	case err != nil:
		return err
	case sample != nil:
		if d.res.matrix != nil {
			return s.Syntax("result[%d]: a sample among series", i)
		}
		if err := d.charge(sampleCost); err != nil {
			return err
		}
		sample.Metric = metric
		if d.res.vector, err = grow(d, d.res.vector, 8); err == nil {
			d.res.vector = append(d.res.vector, sample)
		}
	case stream != nil:
		if d.res.vector != nil {
			return s.Syntax("result[%d]: a series among samples", i)
		}
		stream.Metric = metric
		if d.res.matrix, err = grow(d, d.res.matrix, 8); err == nil {
			d.res.matrix = append(d.res.matrix, stream)
		}
	default:
		return s.Syntax("result[%d]: neither value nor values", i)
	}
	return err
}

// metric reads a series' labels.
func (d *answerDecoder) metric(c byte) (model.Metric, error) {
	if c != '{' {
		return nil, d.s.Syntax("metric: want an object")
	}
	m := model.Metric{}
	err := d.s.Object(func(key string, c byte) error {
		if len(m) >= maxLabels {
			return fmt.Errorf("answered a series of more than %d labels", maxLabels)
		}
		var v string
		if err := d.str(&v, c, maxLabelValue+1); err != nil {
			return err
		}
		if len(v) > maxLabelValue {
			return fmt.Errorf("answered a label %s of more than %d bytes", key, maxLabelValue)
		}
		if err := d.charge(labelCost + 3*int64(len(key)+len(v))); err != nil {
			return err
		}
		m[model.LabelName(key)] = model.LabelValue(v)
		return nil
	})
	return m, err
}

// values reads a matrix series' [[ts, "v"], ...].
func (d *answerDecoder) values(c byte, ss *model.SampleStream) error {
	if c != '[' {
		return d.s.Syntax("values: want an array")
	}
	return d.s.Array(func(i int, c byte) error {
		if i >= maxSeriesPoints {
			return fmt.Errorf("answered a series of more than %d points (Prometheus answers at most 11,000)", maxSeriesPoints)
		}
		var err error
		if ss.Values, err = grow(d, ss.Values, 16); err != nil {
			return err
		}
		var p model.SamplePair
		if err := d.pair(c, &p.Timestamp, &p.Value); err != nil {
			return err
		}
		ss.Values = append(ss.Values, p)
		return nil
	})
}

// pair reads [ts, "v"].
func (d *answerDecoder) pair(c byte, ts *model.Time, v *model.SampleValue) error {
	if c != '[' {
		return d.s.Syntax("want [timestamp, \"value\"]")
	}
	n := 0
	err := d.s.Array(func(i int, c byte) error {
		n++
		var err error
		switch i {
		case 0:
			*ts, err = d.timestamp(c)
		case 1:
			*v, err = d.sampleValue(c)
		default:
			err = d.s.Syntax("want [timestamp, \"value\"], got more")
		}
		return err
	})
	if err == nil && n != 2 {
		err = d.s.Syntax("want [timestamp, \"value\"]")
	}
	return err
}

// maxTimestamp (s) keeps a timestamp's milliseconds within an int64;
// CheckAnswer then holds it to the queried range.
const maxTimestamp = 1e12

// timestamp reads seconds since the epoch (a JSON number).
func (d *answerDecoder) timestamp(c byte) (model.Time, error) {
	if c != '-' && (c < '0' || c > '9') {
		return 0, d.s.Syntax("want a timestamp, got %q", c)
	}
	f, err := d.s.Number(c, true)
	if err != nil {
		return 0, err
	}
	if !(math.Abs(f) <= maxTimestamp) {
		return 0, fmt.Errorf("answered timestamp %g, beyond any time", f)
	}
	return model.Time(math.Round(f * 1000)), nil
}

// sampleValue reads a value as Prometheus writes it: a string ("1.5",
// "NaN", "+Inf"); CheckAnswer judges which values a query may hold.
func (d *answerDecoder) sampleValue(c byte) (model.SampleValue, error) {
	if c != '"' {
		return 0, d.s.Syntax("want a value string, got %q", c)
	}
	var buf [32]byte // a number's text: no allocation a sample
	b, err := d.s.AppendStr(buf[:0], len(buf)+1)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || len(b) > len(buf) {
		return 0, fmt.Errorf("answered the value %q, not a number", truncate(string(b), len(buf)))
	}
	return model.SampleValue(f), nil
}

// truncate cuts s to at most n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// grow makes room for one more element of size bytes, charging the
// budget for a new backing array (append's own growth is not counted).
func grow[T any](d *answerDecoder, s []T, size int64) ([]T, error) {
	if len(s) < cap(s) {
		return s, nil
	}
	n := max(2*cap(s), 8)
	if err := d.charge(int64(n) * size); err != nil {
		return s, err
	}
	out := make([]T, len(s), n)
	copy(out, s)
	return out, nil
}
