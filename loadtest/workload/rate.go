package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseRate reads a rate flag: a positive number of requests/s, at least
// MinRate, or inf.
func ParseRate(s string) (float64, error) {
	if strings.EqualFold(s, "inf") {
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsNaN(v) {
		return 0, fmt.Errorf("rate %q is not a positive number or inf", s)
	}
	if v < MinRate { // the gaps would overflow the run's clock
		return 0, fmt.Errorf("rate %q is below %g req/s", s, MinRate)
	}
	return v, nil
}
