package summary

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLO holds the objectives a good request meets; zero means not set.
type SLO struct {
	TTFT, TPOT, E2EL time.Duration
	// TTFTPerToken is added to TTFT for each input token of the request
	// ("ttft:200+0.5/tok"): prefill time grows with the prompt.
	TTFTPerToken time.Duration
	// MaxITL bounds a request's worst gap between content chunks (a
	// stall that a mean TPOT hides).
	MaxITL time.Duration
	// pinned: the run set ignore_eos, so an output the server cut short
	// of its planned length is no success (set by Summarize).
	pinned bool
}

// Pinned is s for a run that set ignore_eos: an output the server cut
// short of its planned length is no success (compare reads it back).
func (s SLO) Pinned() SLO {
	s.pinned = true
	return s
}

// Set reports whether any objective is set.
func (s SLO) Set() bool {
	return s.TTFT > 0 || s.TTFTPerToken > 0 || s.TPOT > 0 || s.E2EL > 0 || s.MaxITL > 0
}

// HasTTFT reports whether a TTFT objective is set (fixed or per token).
func (s SLO) HasTTFT() bool { return s.TTFT > 0 || s.TTFTPerToken > 0 }

// TTFTFor is the TTFT objective of a request with tokens input tokens.
func (s SLO) TTFTFor(tokens int) time.Duration {
	return s.TTFT + time.Duration(max(tokens, 0))*s.TTFTPerToken
}

// maxSLOMs bounds a threshold (a day): larger is a typo, and it keeps
// the nanoseconds far from overflow.
const maxSLOMs = 86_400_000

// ParseSLO reads vllm bench serve's --goodput syntax, extended: space-
// (or comma-) separated "metric:milliseconds" pairs, metrics ttft, tpot,
// e2el and max_itl; ttft also takes "FIXED+PER/tok" (ms, and ms per
// input token), e.g. ttft:200+0.5/tok.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		name, v, ok := strings.Cut(kv, ":")
		if !ok {
			return slo, fmt.Errorf("goodput %q: want metric:milliseconds, e.g. ttft:500", kv)
		}
		name = strings.ToLower(name)
		if name == "ttft" && strings.HasSuffix(strings.ToLower(v), "/tok") {
			fixed, per, err := parseTTFTPerToken(v)
			if err != nil {
				return slo, fmt.Errorf("goodput %q: %v", kv, err)
			}
			slo.TTFT, slo.TTFTPerToken = fixed, per
			continue
		}
		d, err := parseMs(v)
		if err != nil {
			return slo, fmt.Errorf("goodput %q: %q is not a positive number of milliseconds (at most %d)", kv, v, maxSLOMs)
		}
		switch name {
		case "ttft":
			slo.TTFT, slo.TTFTPerToken = d, 0
		case "tpot":
			slo.TPOT = d
		case "e2el":
			slo.E2EL = d
		case "max_itl":
			slo.MaxITL = d
		default:
			return slo, fmt.Errorf("goodput %q: metric %q is not one of ttft, tpot, e2el, max_itl", kv, name)
		}
	}
	return slo, nil
}

// parseTTFTPerToken reads "FIXED+PER/tok" or "PER/tok": FIXED ms (≥ 0)
// plus PER ms (> 0) per input token.
func parseTTFTPerToken(v string) (fixed, per time.Duration, err error) {
	body := v[:len(v)-len("/tok")]
	f, p, hasFixed := strings.Cut(body, "+")
	if !hasFixed {
		f, p = "0", body
	}
	ms, err := strconv.ParseFloat(f, 64)
	if err != nil || !(ms >= 0 && ms <= maxSLOMs) {
		return 0, 0, fmt.Errorf("fixed part %q is not a number of milliseconds in [0, %d] (want ttft:FIXED+PER/tok, e.g. ttft:200+0.5/tok)", f, maxSLOMs)
	}
	perMs, err := strconv.ParseFloat(p, 64)
	if err != nil || !(perMs > 0 && perMs <= 1000) {
		return 0, 0, fmt.Errorf("per-token part %q is not a positive number of milliseconds per input token, at most 1000 (want ttft:FIXED+PER/tok, e.g. ttft:200+0.5/tok)", p)
	}
	return time.Duration(ms * float64(time.Millisecond)), time.Duration(perMs * float64(time.Millisecond)), nil
}

func parseMs(v string) (time.Duration, error) {
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || !(ms > 0 && ms <= maxSLOMs) {
		return 0, fmt.Errorf("bad milliseconds %q", v)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// String is the --goodput form of s.
func (s SLO) String() string {
	var parts []string
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64) }
	add := func(n string, d time.Duration) {
		if d > 0 {
			parts = append(parts, n+":"+ms(d))
		}
	}
	if s.TTFTPerToken > 0 {
		parts = append(parts, "ttft:"+ms(s.TTFT)+"+"+ms(s.TTFTPerToken)+"/tok")
	} else {
		add("ttft", s.TTFT)
	}
	add("tpot", s.TPOT)
	add("e2el", s.E2EL)
	add("max_itl", s.MaxITL)
	return strings.Join(parts, " ")
}
