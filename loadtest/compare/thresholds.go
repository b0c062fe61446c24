package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Threshold is one --max-regression entry: how much worse a metric may
// get, relative (percent of the base) or absolute (the metric's unit;
// percentage points for SLO attainment (key goodput) and failed_percent).
type Threshold struct {
	Key      string  `json:"key"`
	Value    float64 `json:"value"`
	Relative bool    `json:"relative"`
}

func (t Threshold) String() string {
	s := strconv.FormatFloat(t.Value, 'g', -1, 64)
	if t.Relative {
		return s + "%"
	}
	return s
}

// ParseThresholds reads --max-regression: comma-separated key:threshold,
// e.g. "p99_ttft_ms:10%,goodput:1"; the _ms suffix may be left out.
func ParseThresholds(s string) ([]Threshold, error) {
	var out []Threshold
	keys := CompareKeys()
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return nil, fmt.Errorf("--max-regression %q: want key:threshold, e.g. p99_ttft_ms:10%% or goodput:1", kv)
		}
		if !slices.Contains(keys, k) && slices.Contains(keys, k+"_ms") {
			k += "_ms"
		}
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("--max-regression %q: unknown key %q; valid keys: %s", kv, k, strings.Join(keys, ", "))
		}
		t := Threshold{Key: k}
		v = strings.TrimSpace(v)
		v, t.Relative = strings.CutSuffix(v, "%")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("--max-regression %q: %q is not a number ≥ 0 (add %% for relative)", kv, v)
		}
		t.Value = f
		out = append(out, t)
	}
	return out, nil
}
