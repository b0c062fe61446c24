package prober

import (
	"fmt"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// Validator names, used as the validator label.
const (
	ValidatorOutputRegex     = "output_regex"
	ValidatorMinOutputTokens = "min_output_tokens"
)

// SLO names, used as the slo label.
var SLONames = []string{"ttft", "tpot", "e2el", "max_itl"}

// Validators lists every validator name, for pre-initialising counters.
var Validators = []string{ValidatorOutputRegex, ValidatorMinOutputTokens}

// Evaluate runs the module's validators on a completed stream, then checks
// its SLOs. A validation failure makes the probe fail (reason validation);
// an SLO miss keeps it successful but not good, as in vllm bench goodput.
func Evaluate(r *Result, m *config.Module) {
	v := m.Validators
	if v.OutputRegex != nil && v.OutputRegex.Regexp != nil && !v.OutputRegex.MatchString(r.Output) {
		r.ValidationFailures = append(r.ValidationFailures, ValidatorOutputRegex)
	}
	if v.MinOutputTokens > 0 && r.OutputTokens < v.MinOutputTokens {
		r.ValidationFailures = append(r.ValidationFailures, ValidatorMinOutputTokens)
	}
	if len(r.ValidationFailures) > 0 {
		r.Reason = ReasonValidation
		r.Err = fmt.Errorf("validation failed: %v (output tokens %d)", r.ValidationFailures, r.OutputTokens)
		return
	}
	check := func(name string, slo time.Duration, got time.Duration) {
		if slo > 0 && got > slo {
			r.SLOViolations = append(r.SLOViolations, name)
		}
	}
	check("ttft", time.Duration(m.SLO.TTFT), r.TTFT)
	check("tpot", time.Duration(m.SLO.TPOT), r.TPOT)
	check("e2el", time.Duration(m.SLO.E2EL), r.E2EL)
	check("max_itl", time.Duration(m.SLO.MaxITL), r.MaxITL)
	r.Good = len(r.SLOViolations) == 0
}
