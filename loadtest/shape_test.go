package loadtest

import (
	"math"
	"strings"
	"testing"
)

func TestRampRateAt(t *testing.T) {
	lin := Ramp{Strategy: RampLinear, Start: 1, End: 10}
	for i, want := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		if got := lin.RateAt(i, 10); math.Abs(got-want) > 1e-9 {
			t.Errorf("linear RateAt(%d, 10) = %g, want %g", i, got, want)
		}
	}
	exp := Ramp{Strategy: RampExponential, Start: 1, End: 16}
	for i, want := range []float64{1, 2, 4, 8, 16} {
		if got := exp.RateAt(i, 5); math.Abs(got-want) > 1e-9 {
			t.Errorf("exponential RateAt(%d, 5) = %g, want %g", i, got, want)
		}
	}
	if got := lin.RateAt(0, 1); got != 1 {
		t.Errorf("one request: RateAt = %g, want the start rate", got)
	}
}

func TestRampCheck(t *testing.T) {
	for _, c := range []struct {
		r    Ramp
		want string
	}{
		{Ramp{"linear", 10, 5}, "above --ramp-up-end-rps"},
		{Ramp{"exponential", 0, 5}, "cannot start at 0"},
		{Ramp{"step", 1, 5}, "linear or exponential"},
		{Ramp{"linear", 0, 0}, "> 0"},
		{Ramp{"linear", -1, 5}, "≥ 0"},
		{Ramp{"linear", math.NaN(), 5}, "≥ 0"},
		{Ramp{"linear", 1, math.Inf(1)}, "finite"},
	} {
		if err := c.r.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
	if err := (&Ramp{"linear", 0, 5}).Check(); err != nil {
		t.Errorf("a linear ramp from 0 is vllm bench's: %v", err)
	}
}
