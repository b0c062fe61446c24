package summary

import (
	"fmt"
	"strconv"
	"strings"
)

// Decide is what judges a run, from bench's flags (and from a shard's
// file for bench merge): --goodput's SLOs, --percentiles and the
// --fail-on conditions, resolved against both.
type Decide struct {
	SLO         SLO
	Percentiles []float64
	Conds       []Condition
}

// ParseDecide reads --goodput, --percentiles and --fail-on.
func ParseDecide(goodput, percentiles string, failOn []string) (Decide, error) {
	var d Decide
	var err error
	if d.SLO, err = ParseSLO(goodput); err != nil {
		return d, fmt.Errorf("--%w", err)
	}
	if d.Percentiles, err = ParsePercentiles(percentiles); err != nil {
		return d, err
	}
	for _, s := range failOn {
		c, err := ParseCondition(s)
		if err != nil {
			return d, err
		}
		if err := c.Resolve(d.Percentiles, d.SLO); err != nil {
			return d, err
		}
		d.Conds = append(d.Conds, c)
	}
	return d, nil
}

// ParsePercentiles reads --percentiles: "50,90,99.9", each in (0, 100).
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v >= 100 {
			return nil, fmt.Errorf("--percentiles: %q is not in (0, 100)", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// FailOn checks conds against rep: a line for each condition that holds
// (or cannot be checked), none if the run passes --fail-on.
func FailOn(conds []Condition, rep *Report) []string {
	var lines []string
	for _, c := range conds {
		holds, got, err := c.Check(rep)
		switch {
		case err != nil:
			lines = append(lines, err.Error())
		case holds:
			basis := ""
			if rep.Basis == BasisSchedule {
				basis = "; latency and SLO attainment counted from the schedule"
			}
			lines = append(lines, fmt.Sprintf("fail-on %s holds (%s = %g%s)", c.Src, c.Key, got, basis))
		}
	}
	return lines
}
