package sweep

import (
	"slices"
	"strings"
	"testing"
)

// The sweep flags bench --sweep and bench merge share: --rates holds
// finite rates of at least workload.MinRate, --sweep-refine is not
// negative, --knee-goodput is a percentage; each error names its flag.
func TestFlags(t *testing.T) {
	if r, err := ParseRates(" 1, 2.5,40 "); err != nil || !slices.Equal(r, []float64{1, 2.5, 40}) {
		t.Errorf("ParseRates: %v %v", r, err)
	}
	for _, bad := range []string{"", "1,x", "1,inf", "0", "-3", "NaN", "1e-9", "1,,2"} {
		if _, err := ParseRates(bad); err == nil || !strings.HasPrefix(err.Error(), "--rates: ") {
			t.Errorf("ParseRates(%q): %v", bad, err)
		}
	}
	for _, c := range []struct {
		refine int
		knee   float64
		want   string
	}{
		{2, 99, ""}, {0, 100, ""}, {-1, 99, "--sweep-refine"}, {2, 0, "--knee-goodput 0"}, {2, 100.5, "--knee-goodput"},
	} {
		err := CheckFlags(c.refine, c.knee)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckFlags(%d, %g): %v, want %q", c.refine, c.knee, err, c.want)
		}
	}
}
