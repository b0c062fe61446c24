package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
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
	Workload       string  // a point's llm_prober_workload, seed dropped, and burstiness
	// PromptMean and OutputMean are the mean prompt and output tokens of
	// the point at the knee, read by ReadKneePoint only (NaN: unknown).
	PromptMean, OutputMean float64
}

// MaxKneeFileBytes caps what is read of a knee file: a sweep result holds
// every request of every point and can be large, but its knee keys come
// first and reading stops once they and the workload are found.
const MaxKneeFileBytes = 64 << 20

// maxWorkloadBytes caps the workload kept from the file: it is a label value.
const maxWorkloadBytes = 256

// ReadKneeFile reads the knee of a sweep result at name, and the first
// point's workload (the daemon's capacity block: reading stops there).
func ReadKneeFile(name string) (*Knee, error) { return readKneeFile(name, MaxKneeFileBytes, false) }

// ReadKneePoint reads the knee of a sweep result at name and the point at
// the knee: its workload and mean lengths (`llm-prober plan` compares them
// with the traffic served). Every point is read, token by token.
func ReadKneePoint(name string) (*Knee, error) { return readKneeFile(name, MaxKneeFileBytes, true) }

func readKneeFile(name string, limit int64, kneePoint bool) (*Knee, error) {
	if err := readable(name); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, cannotRead(err)
	}
	defer func() { _ = f.Close() }()
	lr := &io.LimitedReader{R: f, N: limit}
	k, found, err := scanKnee(json.NewDecoder(lr), kneePoint)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, fmt.Errorf("%s:%d: not JSON: %v", name, lineAt(name, se.Offset), err)
	case err != nil && lr.N == 0:
		return nil, fmt.Errorf("%s: no knee in the first %d MiB", name, limit>>20)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%s: the JSON ends early", name)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", name, err)
	case !found["knee_achieved_request_rate"] && found["knee_goodput_percent"] && !found["knee_request_rate"]:
		return nil, fmt.Errorf("%s: the sweep found no knee (no rate kept %g%% of requests within the SLOs)", name, k.GoodputPercent)
	case !found["knee_achieved_request_rate"]:
		return nil, fmt.Errorf("%s: no knee_achieved_request_rate (want a bench --sweep --output-json result)", name)
	case !(k.Rate > 0) || math.IsInf(k.Rate, 1):
		return nil, fmt.Errorf("%s: knee_achieved_request_rate must be a positive finite number, got %g", name, k.Rate)
	}
	return k, nil
}

// scanKnee reads the top-level keys it needs token by token (a sweep's
// per-request arrays are never held) and stops once it has them all;
// with kneePoint, all the points too, for the one at the knee.
func scanKnee(dec *json.Decoder, kneePoint bool) (*Knee, map[string]bool, error) {
	k, found := &Knee{PromptMean: math.NaN(), OutputMean: math.NaN()}, map[string]bool{}
	var points []point
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	floats := map[string]*float64{
		"knee_achieved_request_rate": &k.Rate,
		"knee_request_rate":          &k.Offered,
		"knee_goodput_percent":       &k.GoodputPercent,
	}
	for dec.More() {
		if !kneePoint && found["knee_achieved_request_rate"] && found["llm_prober_workload"] {
			return k, found, nil
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		switch p := floats[key]; {
		case p != nil:
			if err := dec.Decode(p); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", key, err)
			}
			found[key] = true
		case key == "points" && kneePoint && points == nil:
			if points, err = readPoints(dec); err != nil {
				return nil, nil, err
			}
		case key == "points" && !kneePoint && !found["llm_prober_workload"]:
			w, ok, err := firstWorkload(dec)
			if err != nil {
				return nil, nil, err
			}
			k.Workload, found["llm_prober_workload"] = w, ok
			if found["knee_achieved_request_rate"] {
				return k, found, nil // as bench writes it: the knee, then the points
			}
			if err := skipRest(dec); err != nil {
				return nil, nil, err
			}
		default:
			if err := skipValue(dec); err != nil {
				return nil, nil, err
			}
		}
	}
	if kneePoint && found["knee_request_rate"] {
		k.atKnee(points)
	}
	return k, found, nil
}

// seedRE is the seed a synthetic workload's description ends in: each
// sweep point has its own, and the shape is the same.
var seedRE = regexp.MustCompile(`, seed -?[0-9]+$`)

// point is what ReadKneePoint keeps of a sweep point: its offered rate
// (nil: "inf"), lengths and workload.
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

// maxPoints bounds the points ReadKneePoint keeps (a sweep has tens).
const maxPoints = 10_000

// atKnee takes the workload and mean lengths of the point run at the
// knee's offered rate.
func (k *Knee) atKnee(points []point) {
	for _, p := range points {
		if p.rate != nil && *p.rate == k.Offered && p.completed > 0 {
			k.PromptMean, k.OutputMean = p.totalIn/p.completed, p.totalOut/p.completed
			k.Workload = p.describe()
			return
		}
	}
}

// readPoint reads one point object, keeping what point holds and
// skipping the rest (its per-request arrays) token by token.
func readPoint(dec *json.Decoder, i int) (point, error) {
	var p point
	if err := expectDelim(dec, '{'); err != nil {
		return p, fmt.Errorf("points[%d]: %v", i, err)
	}
	floats := map[string]*float64{"completed": &p.completed, "total_input_tokens": &p.totalIn, "total_output_tokens": &p.totalOut}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return p, err
		}
		key, _ := tok.(string)
		var dst any
		switch f := floats[key]; {
		case f != nil:
			dst = f
		case key == "request_rate":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return p, fmt.Errorf("points[%d].%s: %w", i, key, err)
			}
			var r float64
			if json.Unmarshal(raw, &r) == nil {
				p.rate = &r
			}
			continue
		case key == "llm_prober_workload" && !p.hasWorkload:
			dst, p.hasWorkload = &p.workload, true
		case key == "burstiness" && p.burstiness == nil:
			dst = &p.burstiness
		default:
			if err := skipValue(dec); err != nil {
				return p, err
			}
			continue
		}
		if err := dec.Decode(dst); err != nil {
			return p, fmt.Errorf("points[%d].%s: %w", i, key, err)
		}
	}
	_, err := dec.Token() // '}'
	return p, err
}

// readPoints reads the points array whole, one point at a time.
func readPoints(dec *json.Decoder) ([]point, error) {
	if err := expectDelim(dec, '['); err != nil {
		return nil, fmt.Errorf("points: %v", err)
	}
	points := []point{}
	for i := 0; dec.More(); i++ {
		if i >= maxPoints {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		p, err := readPoint(dec, i)
		if err != nil {
			return nil, err
		}
		points = append(points, p)
	}
	_, err := dec.Token() // ']'
	return points, err
}

// firstWorkload reads the opening of the points array and its first
// point, for its workload; the other points are left unread.
func firstWorkload(dec *json.Decoder) (string, bool, error) {
	if err := expectDelim(dec, '['); err != nil {
		return "", false, fmt.Errorf("points: %v", err)
	}
	if !dec.More() {
		return "", false, nil
	}
	p, err := readPoint(dec, 0)
	if err != nil {
		return "", false, err
	}
	return p.describe(), p.hasWorkload, nil
}

// skipRest reads the rest of an array, its closing ']' included.
func skipRest(dec *json.Decoder) error {
	for dec.More() {
		if err := skipValue(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("expected '%c', got %v", rune(d), tok)
	}
	return nil
}

// skipValue reads one value of any size, holding one token at a time.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// lineAt is the line of byte offset in file name (1 if unreadable).
func lineAt(name string, offset int64) int {
	f, err := os.Open(name)
	if err != nil {
		return 1
	}
	defer func() { _ = f.Close() }()
	b, _ := io.ReadAll(io.LimitReader(f, min(offset, MaxKneeFileBytes)))
	return 1 + bytes.Count(b, []byte("\n"))
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
