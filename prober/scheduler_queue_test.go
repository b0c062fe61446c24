package prober

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A timeout before the first token on a server that reports waiting
// requests says the probe was queued; with an empty queue it does not.
func TestTimeoutBeforeFirstTokenExplainsQueueing(t *testing.T) {
	srv := httptest.NewServer(eventStream(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush() // headers at once, then queued: no token
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		waiting float64
		want    bool
	}{{7, true}, {0, false}} {
		s, _ := newTestScheduler(t)
		s.ExplainQueueing(func(target string) (float64, bool) { return c.waiting, target == "t0" })
		s.Apply(schedConfig(srv.URL, 1, 300*time.Millisecond, 200*time.Millisecond, 4))
		var last *Result
		for deadline := time.Now().Add(10 * time.Second); last == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st := s.Statuses(); len(st) == 1 {
				last = st[0].Last
			}
		}
		s.Stop(5 * time.Second)
		if last == nil {
			t.Fatal("no probe finished")
		}
		if last.Reason != ReasonTimeoutFirstToken {
			t.Fatalf("reason %q (%v), want timeout_first_token", last.Reason, last.Err)
		}
		if got := strings.Contains(last.Err.Error(), "7 requests waiting"); got != c.want {
			t.Errorf("waiting %v: error %q", c.waiting, last.Err)
		}
	}
}
