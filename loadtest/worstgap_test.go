package loadtest

import (
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// A request's worst gap is its longest gap between content chunks; one
// that timed out while decoding counts the gap still open when the client
// gave up (as a timeout counts against E2EL); one that never produced a
// token has no gap.
func TestWorstGap(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name string
		res  prober.Result
		age  time.Duration
		want time.Duration
	}{
		{"success", prober.Result{TTFT: 10 * ms, HasTTFT: true, ITL: []time.Duration{5 * ms, 600 * ms, 5 * ms}}, time.Second, 600 * ms},
		{"timeout while decoding", prober.Result{TTFT: 10 * ms, HasTTFT: true, ITL: []time.Duration{5 * ms, 5 * ms},
			Reason: prober.ReasonTimeoutDecode}, time.Second, 980 * ms},
		{"timeout before the first token", prober.Result{Reason: prober.ReasonTimeoutFirstToken}, time.Second, 0},
		{"one chunk", prober.Result{TTFT: 10 * ms, HasTTFT: true}, time.Second, 0},
	} {
		if got := worstGap(&c.res, c.age); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if GapUs(1500*time.Nanosecond) != 2 || GapUs(1<<62) != 1<<31-1 {
		t.Errorf("GapUs rounds up and caps: %d, %d", GapUs(1500), GapUs(1<<62))
	}
}
