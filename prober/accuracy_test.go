package prober

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// The mock runs in this process, so its true write times and the prober's
// readings share one monotonic clock: the error of a reading is how late
// the prober saw a chunk (or a gap) compared with when it was written.
func TestMeasurementAccuracy(t *testing.T) {
	for _, c := range []struct {
		streams   int
		p99Bound  time.Duration // generous: CI machines are shared and -race is slow
		maxTokens int
		tls       bool // over TLS (HTTP/1.1): kernel receive times apply too
	}{
		{1, 5 * time.Millisecond, 40, false},
		{100, 50 * time.Millisecond, 40, false},
		{1, 5 * time.Millisecond, 40, true},
		{100, 50 * time.Millisecond, 40, true},
	} {
		name := fmt.Sprintf("%d streams", c.streams)
		if c.tls {
			name += " over TLS"
		}
		t.Run(name, func(t *testing.T) {
			if raceEnabled {
				c.p99Bound = 500 * time.Millisecond
			}
			ttftErr, itlErr, e2eErr := accuracyRun(t, c.streams, c.maxTokens, c.tls)
			if len(ttftErr) != c.streams || len(itlErr) != c.streams*(c.maxTokens-1) {
				t.Fatalf("%d TTFT and %d ITL samples, want %d and %d", len(ttftErr), len(itlErr), c.streams, c.streams*(c.maxTokens-1))
			}
			for name, errs := range map[string][]time.Duration{"TTFT": ttftErr, "ITL": itlErr, "E2EL": e2eErr} {
				p50, p99, mx := absPercentile(errs, 0.5), absPercentile(errs, 0.99), absPercentile(errs, 1)
				t.Logf("%s error over %d samples: p50 %v p99 %v max %v", name, len(errs), p50, p99, mx)
				if p99 > c.p99Bound {
					t.Errorf("%s p99 error %v exceeds %v", name, p99, c.p99Bound)
				}
				// A reading can never precede the write it reports: a
				// negative error means the wrong chunk or start was used.
				// (Gaps may be negative: a late chunk shortens the next gap.)
				if lo := percentile(errs, 0); name != "ITL" && lo < -time.Millisecond {
					t.Errorf("%s error %v is negative: measured before the data was sent", name, lo)
				}
			}
		})
	}
}

func accuracyRun(t *testing.T, streams, maxTokens int, tls bool) (ttftErr, itlErr, e2eErr []time.Duration) {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 50 * time.Millisecond}
	o.ITL = mockvllm.Dist{Mean: 10 * time.Millisecond}
	o.MaxRunning, o.KVBlocks = 0, 0 // no queueing: every stream runs at once
	mock := mockvllm.New(o)
	defer mock.Close()
	srv := httptest.NewUnstartedServer(mock)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	defer srv.Close()
	target := testTarget(srv.URL)
	target.HTTPClientConfig.TLSConfig.InsecureSkipVerify = tls
	client, err := NewClient(target, time.Minute) // the product's client, as the scheduler builds it
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()

	target.Model = o.Model
	m := chatModule()
	m.MaxTokens, m.IgnoreEOS = maxTokens, true

	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Staggered like the scheduler's random phases, yet all
			// streams still overlap (each lasts ~450 ms).
			time.Sleep(time.Duration(i) * time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			id := fmt.Sprintf("acc-%d", i)
			r := Run(ctx, client, target, m, id, "test")
			if !r.Success() || r.OutputTokens != maxTokens || !r.KernelTimes {
				t.Errorf("probe %s: %s %v, %d tokens, kernel times %v", id, r.Reason, r.Err, r.OutputTokens, r.KernelTimes)
				return
			}
			tr, ok := mock.Emissions(id)
			if !ok {
				t.Errorf("no trace for %s", id)
				return
			}
			var content []time.Time
			var done time.Time
			for _, ch := range tr.Chunks {
				switch {
				case ch.Content:
					content = append(content, ch.At)
				case ch.Kind == mockvllm.KindDone:
					done = ch.At
				}
			}
			if len(r.ITL) != len(content)-1 {
				t.Errorf("probe %s: %d ITLs for %d content chunks", id, len(r.ITL), len(content))
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ttftErr = append(ttftErr, r.Start.Add(r.TTFT).Sub(content[0]))
			e2eErr = append(e2eErr, r.Start.Add(r.E2EL).Sub(done))
			for k, gap := range r.ITL {
				itlErr = append(itlErr, gap-content[k+1].Sub(content[k]))
			}
		}()
	}
	wg.Wait()
	return ttftErr, itlErr, e2eErr
}

func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func absPercentile(d []time.Duration, q float64) time.Duration {
	a := make([]time.Duration, len(d))
	for i, v := range d {
		a[i] = v.Abs()
	}
	return percentile(a, q)
}
