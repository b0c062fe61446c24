package summary

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// slowSend holds every generation request in the client for delay
// before it leaves: time lost before the server, as a client that cannot
// open connections fast enough loses it.
type slowSend struct {
	next  http.RoundTripper
	delay time.Duration
}

func (s slowSend) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/completions") {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return s.next.RoundTrip(r)
}

// Against the mock's own metrics (its TTFT and queue-time histograms): a
// burst whose time is lost in the client is not the server's. With send
// lag on top (injected into the records: the generator sent 300 ms late)
// the client is named; without it nothing seen explains bench's TTFT, and
// the verdict says the evidence conflicts, instead of prefill_too_slow.
func TestJudgeBurstLostInClient(t *testing.T) {
	o := mocktarget.FixedMock()
	o.MaxRunning, o.KVBlocks = 0, 0 // no queue, no KV limit: the server is idle
	_, tg, client := mocktarget.Start(t, o)
	slow, next := *client, client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	slow.Transport = slowSend{next: next, delay: 150 * time.Millisecond}
	w := serverwatch.Watch(t.Context(), client, tg, 50*time.Millisecond)
	opts := runkit.BaseOptions(tg, &slow, 8, 4)
	opts.Rate, opts.NumPrompts = math.Inf(1), 40
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := w.Stop(t.Context())
	if !srv.Available || srv.MeanTTFT <= 0 || srv.MeanQueueTime < 0 {
		t.Fatalf("the mock's TTFT and queue time unread: %+v", srv)
	}
	judge := func(run *loadtest.Run) Verdict {
		rep := Summarize(run, SLO{}, nil)
		s := srv
		AttachServer(&s, rep)
		return Judge(rep, &s)
	}
	if v := judge(run); v.Bottleneck != BottleneckUndetermined {
		t.Errorf("time lost before the server, sent on time: %s, want %s\n%s", v.Bottleneck, BottleneckUndetermined, strings.Join(v.Evidence, "\n"))
	}
	for i := range run.Records {
		run.Records[i].Start += int64(300 * time.Millisecond)
		run.Records[i].End += int64(300 * time.Millisecond)
	}
	if v := judge(run); v.Bottleneck != BottleneckClient {
		t.Errorf("sent 300 ms late too: %s, want %s\n%s", v.Bottleneck, BottleneckClient, strings.Join(v.Evidence, "\n"))
	}
}
