package sweep

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// CheckFlags checks the flags that decide a sweep's knee, bench
// --sweep's and bench merge's: --sweep-refine and --knee-goodput.
func CheckFlags(refine int, kneeGoodput float64) error {
	switch {
	case refine < 0:
		return errors.New("--sweep-refine cannot be negative")
	case !(kneeGoodput > 0 && kneeGoodput <= 100):
		return fmt.Errorf("--knee-goodput %g is not a percentage in (0, 100]", kneeGoodput)
	}
	return nil
}

// ParseRates reads --rates: finite positive rates, comma-separated.
func ParseRates(list string) ([]float64, error) {
	var rates []float64
	for _, f := range strings.Split(list, ",") {
		r, err := workload.ParseRate(strings.TrimSpace(f))
		if err != nil || math.IsInf(r, 1) {
			return nil, fmt.Errorf("--rates: %q is not a finite positive rate", f)
		}
		rates = append(rates, r)
	}
	return rates, nil
}
