package loadtest

import (
	"fmt"
	"strconv"
	"strings"
)

// Condition is one --fail-on check: a result key compared with a bound.
// It holds (and fails the run) when the comparison is true.
type Condition struct {
	Src   string
	Key   string // a numeric result key (VLLMKeys)
	Op    string // "<", "<=", ">", ">="
	Bound float64
}

// failOnAliases are the short names of common result keys.
var failOnAliases = map[string]string{
	"goodput":    "llm_prober_goodput_percent",
	"failures":   "failed",
	"throughput": "request_throughput",
}

// ParseCondition reads "key<op>number": goodput<99 (percent of requests
// good), p99_ttft>500 or p99_ttft_ms>500 (ms), failed>0, any result key
// such as request_throughput<10; "any-failure" is failed>0.
func ParseCondition(s string) (Condition, error) {
	src := strings.TrimSpace(s)
	if src == "any-failure" {
		return Condition{Src: src, Key: "failed", Op: ">", Bound: 0}, nil
	}
	i := strings.IndexAny(src, "<>")
	if i <= 0 {
		return Condition{}, fmt.Errorf("--fail-on %q: want key<number or key>number, e.g. goodput<99, p99_ttft>500, failed>0", s)
	}
	op := src[i : i+1]
	rest := src[i+1:]
	if strings.HasPrefix(rest, "=") {
		op, rest = op+"=", rest[1:]
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), "%"), 64)
	if err != nil {
		return Condition{}, fmt.Errorf("--fail-on %q: %q is not a number", s, rest)
	}
	key := strings.ToLower(strings.TrimSpace(src[:i]))
	if a, ok := failOnAliases[key]; ok {
		key = a
	}
	return Condition{Src: src, Key: key, Op: op, Bound: v}, nil
}

// Check evaluates the condition against a report; holds is true when the
// run must fail. An unknown key is an error.
func (c Condition) Check(rep *Report) (holds bool, got float64, err error) {
	vals := numericKeys(rep)
	v, ok := vals[c.Key]
	if !ok {
		v, ok = vals[c.Key+"_ms"]
	}
	if !ok {
		return false, 0, fmt.Errorf("--fail-on %q: no numeric result key %q (try goodput, failed, request_throughput, p99_ttft, mean_tpot, median_e2el, p99.9_itl)", c.Src, c.Key)
	}
	switch c.Op {
	case "<":
		holds = v < c.Bound
	case "<=":
		holds = v <= c.Bound
	case ">":
		holds = v > c.Bound
	case ">=":
		holds = v >= c.Bound
	}
	return holds, v, nil
}

func numericKeys(rep *Report) map[string]float64 {
	out := map[string]float64{}
	for _, kv := range rep.VLLMKeys() {
		switch v := kv.Value.(type) {
		case float64:
			out[kv.Key] = v
		case int:
			out[kv.Key] = float64(v)
		}
	}
	return out
}
