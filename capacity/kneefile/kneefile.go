package kneefile

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sync/atomic"

	"github.com/llm-prober/llm-prober/internal/jsonscan"
	"github.com/llm-prober/llm-prober/internal/safefile"
)

// Knee is what a capacity block takes from a `bench --sweep --output-json`
// result.
type Knee struct {
	// Rate is knee_achieved_request_rate: the request rate the server
	// completed at the knee. The headroom divides the server's finished
	// (served) request rate by it, so both are completion rates; the
	// offered rate (Offered, knee_request_rate) can be higher than what
	// the server finished while it held the SLOs, and would overstate the
	// headroom.
	Rate, Offered  float64
	GoodputPercent float64 // knee_goodput_percent: the SLO share the knee kept
	// Workload is the knee point's llm_prober_workload, seed dropped, and
	// its burstiness (the point run at the knee's offered rate).
	Workload string
	// PromptMean and OutputMean are the mean prompt and output tokens of
	// the point at the knee (NaN: unknown).
	PromptMean, OutputMean float64
}

// MaxBytes caps what is read of a knee file: a sweep result holds
// every request of every point and can be large, but its knee keys come
// first and reading stops once they and the knee's point are found.
const MaxBytes = 64 << 20

// Bounds of a knee file's numbers, checked where they enter: a knee
// outside [MinRate, MaxRate] req/s is no measurement (5e-324
// made the headroom −Inf).
const (
	MinRate = 1e-6
	MaxRate = 1e9
)

// maxWorkloadBytes caps the workload kept from the file: it is a label value.
const maxWorkloadBytes = 256

// maxPoints bounds a sweep's points (a sweep has tens).
const maxPoints = 10_000

// Read reads the knee of a sweep result at name and the point at
// the knee (its workload and burstiness, which the daemon's
// llm_prober_capacity_knee_info shows): one bounded reader for the
// daemon and `llm-prober plan --knee-file`.
func Read(name string) (*Knee, error) { return read(name, MaxBytes) }

// Cache holds the knee files one config load has read: a file named by
// many targets is read once per reload. The zero value is not usable:
// make one per load (Cache{}).
type Cache map[string]kneeRead

type kneeRead struct {
	k   *Knee
	err error
}

// Read reads name, or returns what an earlier Read of it returned.
func (c Cache) Read(name string) (*Knee, error) {
	if r, ok := c[name]; ok {
		return r.k, r.err
	}
	k, err := Read(name)
	c[name] = kneeRead{k, err}
	return k, err
}

// kneeScan is what the scan found: the knee keys, the status bench
// writes, and the knee's point.
type kneeScan struct {
	k          *Knee
	found      map[string]bool
	status     string
	lowerBound float64
	knee       *point  // the point at the knee's offered rate
	pending    []point // points read before the knee keys
}

// errKneeDone stops the scan once everything is found.
var errKneeDone = errors.New("done")

// opens counts the knee files opened.
var opens atomic.Int64

// Opens is how many knee files this process has opened (tests check a
// file is read once per config load).
func Opens() int64 { return opens.Load() }

func read(name string, limit int64) (*Knee, error) {
	opens.Add(1)
	f, err := safefile.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	s := jsonscan.New(f, limit)
	ks := &kneeScan{k: &Knee{PromptMean: math.NaN(), OutputMean: math.NaN()}, found: map[string]bool{}}
	err = ks.scan(s)
	var se *jsonscan.SyntaxError
	var ve *kneeValueError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s:%d: not JSON: %s", name, se.Line, se.Msg)
	case errors.As(err, &ve):
		return nil, fmt.Errorf("%s:%d: %s", name, ve.line, ve.msg)
	case errors.Is(err, jsonscan.ErrCap) && ks.found["knee_achieved_request_rate"] && ks.found["knee_request_rate"]:
		// The knee, but not its point, within the cap: the knee without
		// its workload.
	case errors.Is(err, jsonscan.ErrCap):
		return nil, fmt.Errorf("%s: no knee in the first %d MiB", name, limit>>20)
	case errors.Is(err, jsonscan.ErrEnd):
		return nil, fmt.Errorf("%s: the JSON ends early", name)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return ks.result(name)
}

// result checks what the scan found and fills the knee's point in.
func (ks *kneeScan) result(name string) (*Knee, error) {
	k := ks.k
	switch {
	case ks.status == "lower_bound":
		return nil, fmt.Errorf("%s: knee above %g req/s is a lower bound, not a knee: no rate of the sweep failed; rerun bench --sweep with higher --rates", name, ks.lowerBound)
	case ks.status == "interrupted":
		return nil, fmt.Errorf("%s: the sweep was interrupted before it found the knee", name)
	case ks.status == "not_found" || !ks.found["knee_achieved_request_rate"] && ks.found["knee_goodput_percent"] && !ks.found["knee_request_rate"]:
		return nil, fmt.Errorf("%s: the sweep found no knee (no rate kept %g%% of requests within the SLOs)", name, k.GoodputPercent)
	case !ks.found["knee_achieved_request_rate"]:
		return nil, fmt.Errorf("%s: no knee_achieved_request_rate (want a bench --sweep --output-json result)", name)
	}
	for i := range ks.pending {
		if ks.knee == nil && *ks.pending[i].rate == k.Offered {
			ks.knee = &ks.pending[i]
		}
	}
	if p := ks.knee; p != nil {
		k.Workload = p.describe()
		if p.completed > 0 {
			k.PromptMean, k.OutputMean = p.totalIn/p.completed, p.totalOut/p.completed
		}
	}
	return k, nil
}

// kneeValueError is a well-formed value out of bounds, at a line.
type kneeValueError struct {
	line int
	msg  string
}

func (e *kneeValueError) Error() string { return e.msg }

func valueErr(s *jsonscan.Scanner, format string, args ...any) error {
	return &kneeValueError{line: s.Line(), msg: fmt.Sprintf(format, args...)}
}

// scan reads the top-level object; the per-request arrays are skipped
// byte by byte and never held. It stops once the knee keys and the
// knee's point are read (bench writes the knee first).
func (ks *kneeScan) scan(s *jsonscan.Scanner) error {
	c, err := s.NonSpace()
	if err != nil {
		return err
	}
	if c != '{' {
		return s.Syntax("expected '{', got %q", c)
	}
	err = s.Object(func(key string, c byte) error {
		switch key {
		case "knee_achieved_request_rate", "knee_request_rate":
			v, err := rate(s, key, c)
			if key == "knee_request_rate" {
				ks.k.Offered = v
			} else {
				ks.k.Rate = v
			}
			ks.found[key] = true
			return err
		case "knee_goodput_percent":
			v, err := num(s, key, c)
			if err == nil && !(v > 0 && v <= 100) {
				err = valueErr(s, "%s must be in (0, 100], got %g", key, v)
			}
			ks.k.GoodputPercent, ks.found[key] = v, true
			return err
		case "llm_prober_knee_status":
			if c != '"' {
				return valueErr(s, "%s: want a string", key)
			}
			v, err := s.Str(32)
			if err == nil && v != "found" && v != "lower_bound" && v != "not_found" && v != "interrupted" {
				err = valueErr(s, "%s: unknown status %q (want found, lower_bound, not_found or interrupted)", key, v)
			}
			ks.status = v
			return err
		case "llm_prober_knee_lower_bound_request_rate":
			v, err := num(s, key, c)
			ks.lowerBound = v
			return err
		case "points":
			if c != '[' {
				return valueErr(s, "points: want an array")
			}
			if err := ks.readPoints(s); err != nil {
				return err
			}
		default:
			return s.Skip(c)
		}
		if ks.done() {
			return errKneeDone
		}
		return nil
	})
	switch {
	case errors.Is(err, errKneeDone):
		return nil
	case err != nil:
		return err
	}
	return s.End()
}

// done: the knee keys and the knee's point are in hand.
func (ks *kneeScan) done() bool {
	return ks.found["knee_achieved_request_rate"] && ks.found["knee_request_rate"] && ks.knee != nil
}

// num reads a finite number (a JSON number cannot be NaN; 1e999 is +Inf).
func num(s *jsonscan.Scanner, key string, c byte) (float64, error) {
	if c != '-' && (c < '0' || c > '9') {
		if err := s.Skip(c); err != nil {
			return 0, err
		}
		return 0, valueErr(s, "%s: want a number", key)
	}
	v, err := s.Number(c, true)
	if err == nil && math.IsInf(v, 0) {
		err = valueErr(s, "%s: %g is out of range", key, v)
	}
	return v, err
}

// rate reads a knee rate in [MinRate, MaxRate].
func rate(s *jsonscan.Scanner, key string, c byte) (float64, error) {
	v, err := num(s, key, c)
	if err == nil && !(v >= MinRate && v <= MaxRate) {
		err = valueErr(s, "%s must be a rate between %g and %g req/s, got %g", key, MinRate, MaxRate, v)
	}
	return v, err
}

// seedRE is the seed a synthetic workload's description ends in: each
// sweep point has its own, and the shape is the same.
var seedRE = regexp.MustCompile(`, seed -?[0-9]+$`)

// point is what the reader keeps of a sweep point: its offered rate
// (nil: "inf" or absent), lengths and workload.
type point struct {
	rate                         *float64
	completed, totalIn, totalOut float64
	workload                     string
	hasWorkload                  bool
	burstiness                   *float64
}

// describe is p's workload without its seed, with its burstiness: arrival
// burstiness moves the knee as much as lengths do.
func (p *point) describe() string {
	w := seedRE.ReplaceAllString(p.workload, "")
	if p.hasWorkload && p.burstiness != nil {
		w += fmt.Sprintf(", burstiness %g", *p.burstiness)
	}
	return truncate(w, maxWorkloadBytes)
}

// readPoints reads the points array one point at a time, keeping the one
// at the knee's offered rate, or, when the knee keys come after the
// points, every point with a rate (at most maxPoints, each small).
func (ks *kneeScan) readPoints(s *jsonscan.Scanner) error {
	return s.Array(func(i int, c byte) error {
		if i >= maxPoints {
			return valueErr(s, "points: more than %d", maxPoints)
		}
		if c != '{' {
			return valueErr(s, "points[%d]: want an object", i)
		}
		p, err := readPoint(s, i)
		switch {
		case err != nil:
			return err
		case p.rate == nil:
		case !ks.found["knee_request_rate"]:
			ks.pending = append(ks.pending, p)
		case *p.rate == ks.k.Offered && ks.knee == nil:
			ks.knee = &p
			if ks.done() {
				return errKneeDone
			}
		}
		return nil
	})
}

// readPoint reads one point object whose '{' was read, keeping what point
// holds and skipping the rest (its per-request arrays).
func readPoint(s *jsonscan.Scanner, i int) (point, error) {
	var p point
	err := s.Object(func(key string, c byte) error {
		var err error
		switch key {
		case "completed", "total_input_tokens", "total_output_tokens":
			var v float64
			if v, err = num(s, fmt.Sprintf("points[%d].%s", i, key), c); err == nil && v < 0 {
				err = valueErr(s, "points[%d].%s must not be negative, got %g", i, key, v)
			}
			switch key {
			case "completed":
				p.completed = v
			case "total_input_tokens":
				p.totalIn = v
			default:
				p.totalOut = v
			}
		case "request_rate":
			if c == '"' { // "inf": a closed loop
				_, err = s.Str(0)
				return err
			}
			var v float64
			if v, err = num(s, fmt.Sprintf("points[%d].%s", i, key), c); err == nil {
				p.rate = &v
			}
		case "llm_prober_workload":
			if c != '"' {
				return valueErr(s, "points[%d].%s: want a string", i, key)
			}
			p.workload, err = s.Str(4 * maxWorkloadBytes)
			p.hasWorkload = true
		case "burstiness":
			var v float64
			if v, err = num(s, fmt.Sprintf("points[%d].%s", i, key), c); err == nil {
				p.burstiness = &v
			}
		default:
			err = s.Skip(c)
		}
		return err
	})
	return p, err
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
