package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

// Closed-loop progress says what happens: users stop in so long, then the
// last requests drain; never "ETA 0s sending".
func TestProgressClosedLoopDuration(t *testing.T) {
	var b strings.Builder
	p := &ProgressPrinter{W: &b, Every: time.Nanosecond}
	p.Print(loadtest.Progress{Elapsed: time.Second, Done: 10, InFlight: 4, Remaining: 5 * time.Second, ClosedLoop: true})
	p.Print(loadtest.Progress{Elapsed: 7 * time.Second, Done: 60, InFlight: 3, ClosedLoop: true})
	p.Print(loadtest.Progress{Elapsed: 8 * time.Second, Done: 63, ClosedLoop: true, Final: true})
	p.Print(loadtest.Progress{Elapsed: 9 * time.Second, Done: 70, InFlight: 2}) // open loop, sending over
	s := b.String()
	for _, want := range []string{"users stop in 5s", "draining 3 in flight", "0 failed  done", "draining 2 in flight"} {
		if !strings.Contains(s, want) {
			t.Errorf("progress lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "0s sending") {
		t.Errorf("progress says 0s sending:\n%s", s)
	}
}
