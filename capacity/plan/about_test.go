package plan

import (
	"testing"
	"time"
)

func TestAbout(t *testing.T) {
	for d, want := range map[time.Duration]string{
		47*time.Hour + 59*time.Minute + 12*time.Second: "2d",
		30 * time.Second:                "30s",
		5*time.Hour + 4*time.Minute:     "5h",
		5*time.Hour + 6*time.Minute:     "5h10m",
		7 * 24 * time.Hour:              "1w",
		26*time.Hour + 20*time.Minute:   "1d2h",
		59*time.Minute + 59*time.Second: "59m59s",
	} {
		if got := about(d); got != want {
			t.Errorf("about(%s) = %s, want %s", d, got, want)
		}
	}
}
