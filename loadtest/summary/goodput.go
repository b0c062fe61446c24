package summary

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLO holds the goodput objectives; zero means not set.
type SLO struct {
	TTFT, TPOT, E2EL time.Duration
	// pinned: the run set ignore_eos, so an output the server cut short
	// of its planned length is no success (set by Summarize).
	pinned bool
}

// Set reports whether any objective is set.
func (s SLO) Set() bool { return s.TTFT > 0 || s.TPOT > 0 || s.E2EL > 0 }

// ParseSLO reads vllm bench serve's --goodput syntax: space- (or comma-)
// separated "metric:milliseconds" pairs, metrics ttft, tpot and e2el.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		name, v, ok := strings.Cut(kv, ":")
		if !ok {
			return slo, fmt.Errorf("goodput %q: want metric:milliseconds, e.g. ttft:500", kv)
		}
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms <= 0 {
			return slo, fmt.Errorf("goodput %q: %q is not a positive number of milliseconds", kv, v)
		}
		d := time.Duration(ms * float64(time.Millisecond))
		switch strings.ToLower(name) {
		case "ttft":
			slo.TTFT = d
		case "tpot":
			slo.TPOT = d
		case "e2el":
			slo.E2EL = d
		default:
			return slo, fmt.Errorf("goodput %q: metric %q is not one of ttft, tpot, e2el", kv, name)
		}
	}
	return slo, nil
}

// String is the --goodput form of s.
func (s SLO) String() string {
	var parts []string
	add := func(n string, d time.Duration) {
		if d > 0 {
			parts = append(parts, n+":"+strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64))
		}
	}
	add("ttft", s.TTFT)
	add("tpot", s.TPOT)
	add("e2el", s.E2EL)
	return strings.Join(parts, " ")
}
