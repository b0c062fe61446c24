package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// newMooncake is a parser of Mooncake trace lines ({"timestamp": ms,
// "input_length", "output_length", "hash_ids"}) that allocates nothing
// a line: json.Unmarshal's few hundred bytes of garbage a line would let
// the heap of a trace at the request cap grow to twice what it holds.
// The line is checked whole by json.Valid (pooled, no garbage), then read
// in place; keys match as encoding/json's do (case-insensitively, the
// last of a repeated key winning), unknown ones are skipped.
func newMooncake() func(text []byte) (ms float64, in, out int64, ids []int64, skip bool, err error) {
	var ids []int64
	return func(text []byte) (float64, int64, int64, []int64, bool, error) {
		if !json.Valid(text) {
			var v any
			err := json.Unmarshal(text, &v) // only for its message
			return 0, 0, 0, nil, false, fmt.Errorf("not a trace entry: %w", err)
		}
		p := mcLine{b: text}
		p.space()
		if !p.eat('{') {
			return 0, 0, 0, nil, false, errors.New("not a trace entry: not a JSON object")
		}
		var ms float64
		var in, out int64
		var seen [3]bool
		ids = ids[:0]
		for p.space(); !p.eat('}'); p.space() {
			p.eat(',')
			p.space()
			key := p.str()
			if bytes.IndexByte(key, '\\') >= 0 { // an escaped key, decoded as encoding/json would (rare: it allocates)
				var k string
				_ = json.Unmarshal(p.b[p.i-len(key)-2:p.i], &k)
				key = []byte(k)
			}
			p.space()
			p.eat(':')
			p.space()
			val := p.value()
			var err error
			switch {
			case bytes.EqualFold(key, []byte("timestamp")):
				seen[0], err = !isNull(val), nil
				if seen[0] {
					ms, err = mcNumber(val, "timestamp")
				}
			case bytes.EqualFold(key, []byte("input_length")):
				seen[1] = !isNull(val)
				if seen[1] {
					in, err = mcInt(val, "input_length")
				}
			case bytes.EqualFold(key, []byte("output_length")):
				seen[2] = !isNull(val)
				if seen[2] {
					out, err = mcInt(val, "output_length")
				}
			case bytes.EqualFold(key, []byte("hash_ids")):
				ids, err = mcInts(ids[:0], val)
			}
			if err != nil {
				return 0, 0, 0, nil, false, fmt.Errorf("not a trace entry: %w", err)
			}
		}
		var missing []string
		for k, name := range [...]string{"timestamp", "input_length", "output_length"} {
			if !seen[k] {
				missing = append(missing, `"`+name+`"`)
			}
		}
		if len(missing) > 0 {
			return 0, 0, 0, nil, false, fmt.Errorf("no %s", strings.Join(missing, ", "))
		}
		return ms, in, out, ids, false, nil
	}
}

// mcLine reads a line json.Valid accepted: no syntax checks are left.
type mcLine struct {
	b []byte
	i int
}

func (p *mcLine) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

func (p *mcLine) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str is a string's raw bytes, quotes cut (a key with escapes matches
// none of ours, as none needs one).
func (p *mcLine) str() []byte {
	start := p.i
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	return p.b[start+1 : p.i-1]
}

// value is the raw bytes of the value at p.i, skipped.
func (p *mcLine) value() []byte {
	start := p.i
	depth := 0
	for {
		switch c := p.b[p.i]; c {
		case '"':
			p.str()
			if depth == 0 {
				return p.b[start:p.i]
			}
			continue
		case '[', '{':
			depth++
		case ']', '}':
			if depth == 0 {
				return p.b[start:p.i]
			}
			if depth--; depth == 0 {
				p.i++
				return p.b[start:p.i]
			}
		case ',':
			if depth == 0 {
				return p.b[start:p.i]
			}
		}
		p.i++
		if p.i == len(p.b) {
			return p.b[start:p.i]
		}
	}
}

func isNull(v []byte) bool { return string(v) == "null" }

func isNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') }

func mcNumber(v []byte, field string) (float64, error) {
	if !isNumber(bytes.TrimSpace(v)) {
		return 0, fmt.Errorf("%q is %.20q, not a number", field, v)
	}
	f, err := strconv.ParseFloat(unsafeString(bytes.TrimSpace(v)), 64)
	if err != nil {
		return 0, fmt.Errorf("%q %.40q is out of range", field, v)
	}
	return f, nil
}

func mcInt(v []byte, field string) (int64, error) {
	v = bytes.TrimSpace(v)
	if !isNumber(v) {
		return 0, fmt.Errorf("%q is %.20q, not a number", field, v)
	}
	n, err := strconv.ParseInt(unsafeString(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q %.40q is not a whole number in range", field, v)
	}
	return n, nil
}

// mcInts appends the whole numbers of a JSON array (or null) to dst; a
// null in it is 0, as encoding/json has it.
func mcInts(dst []int64, v []byte) ([]int64, error) {
	v = bytes.TrimSpace(v)
	if isNull(v) {
		return dst, nil
	}
	if len(v) < 2 || v[0] != '[' {
		return dst, fmt.Errorf(`"hash_ids" is %.20q, not an array`, v)
	}
	p := mcLine{b: v[:len(v)-1], i: 1}
	for p.space(); p.i < len(p.b); p.space() {
		p.eat(',')
		p.space()
		v := p.value()
		if isNull(bytes.TrimSpace(v)) {
			dst = append(dst, 0)
			continue
		}
		n, err := mcInt(v, "hash_ids")
		if err != nil {
			return dst, err
		}
		dst = append(dst, n)
	}
	return dst, nil
}
