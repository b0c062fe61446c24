package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/stats"
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
	"goodput":    "llm_prober_goodput_percent", // the share: kept for compatibility
	"attainment": "llm_prober_slo_attainment_percent",
	"failures":   "failed",
	"throughput": "request_throughput",
}

// ParseCondition reads "key<op>number": goodput<99 (percent of requests
// Good), p99_ttft>500 or p99_ttft_ms>500 (ms), failed>0, any result key
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

// goodputKeys are the result keys that mean something only with SLOs:
// without --goodput every successful request counts as good.
var goodputKeys = []string{"llm_prober_goodput_percent", "request_goodput", "llm_prober_good_requests",
	"llm_prober_goodput_send_percent", "llm_prober_goodput_schedule_percent", "llm_prober_slo_attainment_percent"}

// FailOnKeys lists the numeric result keys a condition can name in a run
// with percentiles ps and objectives slo (the goodput keys only when slo
// is set), in VLLMKeys order.
func FailOnKeys(ps []float64, slo SLO) []string {
	if len(ps) == 0 {
		ps = DefaultPercentiles
	}
	// A report with every optional key present: a rate, a cap, an SLO.
	st := stats.ExactStats(nil, ps)
	rep := &Report{Rate: 1, MaxConcurrency: 1, SLO: SLO{TTFT: 1}, TTFT: st, TPOT: st, ITL: st, E2EL: st, MaxITL: st}
	var keys []string
	for _, kv := range rep.VLLMKeys() {
		switch kv.Value.(type) {
		case float64, int:
			if slo.Set() || !slices.Contains(goodputKeys, kv.Key) {
				keys = append(keys, kv.Key)
			}
		}
	}
	return keys
}

// Resolve checks the condition's key against the keys of a run with
// percentiles ps and objectives slo, before the run: the key becomes the
// result key it names (p99_ttft: p99_ttft_ms). The error of an unknown
// Key lists the valid ones.
func (c *Condition) Resolve(ps []float64, slo SLO) error {
	keys := FailOnKeys(ps, slo)
	if !slo.Set() && (slices.Contains(goodputKeys, c.Key) || slices.Contains(goodputKeys, c.Key+"_ms")) {
		return fmt.Errorf("--fail-on %q: goodput needs SLOs; without --goodput (e.g. \"ttft:500 tpot:50\") every successful request counts as good", c.Src)
	}
	// p99_max_itl: llm_prober_p99_max_itl_ms, bench's own key.
	for _, k := range []string{c.Key, c.Key + "_ms", "llm_prober_" + c.Key, "llm_prober_" + c.Key + "_ms"} {
		if slices.Contains(keys, k) {
			c.Key = k
			return nil
		}
	}
	return fmt.Errorf("--fail-on %q: no result key %q; valid keys: %s", c.Src, c.Key, describeKeys(keys, slo))
}

// describeKeys lists keys compactly: the aliases, then the keys with the
// latency ones grouped as {mean,median,std,p50,…}_{ttft,tpot,itl,e2el}[_ms].
func describeKeys(keys []string, slo SLO) string {
	var aliases, plain, stats []string
	for a, k := range failOnAliases {
		if slices.Contains(keys, k) {
			aliases = append(aliases, a)
		}
	}
	slices.Sort(aliases)
	aliases = append(aliases, "any-failure")
	for _, k := range keys {
		if s, ok := strings.CutSuffix(k, "_ttft_ms"); ok {
			stats = append(stats, s)
		} else if !strings.HasSuffix(k, "_tpot_ms") && !strings.HasSuffix(k, "_itl_ms") && !strings.HasSuffix(k, "_e2el_ms") {
			plain = append(plain, k)
		}
	}
	out := strings.Join(aliases, ", ") + " (aliases); " + strings.Join(plain, ", ") +
		"; {" + strings.Join(stats, ",") + "}_{ttft,tpot,itl,e2el,max_itl}[_ms] (the percentiles of --percentiles; max_itl: each request's worst gap)"
	if !slo.Set() {
		out += "; with --goodput also attainment (SLO attainment, %), goodput (the older name of attainment), request_goodput (good req/s), llm_prober_good_requests"
	}
	return out
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

// numericKeys are rep's numeric result keys as --fail-on reads them:
// TTFT and E2EL of the report's basis (from the schedule when requests
// queued in the client), like its goodput.
func numericKeys(rep *Report) map[string]float64 {
	out := map[string]float64{}
	basis := *rep
	basis.TTFT, basis.E2EL = rep.BasisTTFT(), rep.BasisE2EL()
	for _, kv := range basis.VLLMKeys() {
		switch v := kv.Value.(type) {
		case float64:
			out[kv.Key] = v
		case int:
			out[kv.Key] = float64(v)
		}
	}
	return out
}
