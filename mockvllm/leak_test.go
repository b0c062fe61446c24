package mockvllm

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowOptions keep requests in flight long enough to interrupt them, with
// two slots so some requests are queued.
func slowOptions() Options {
	o := fastOptions()
	o.TTFT = Dist{Mean: 20 * time.Millisecond}
	o.ITL = Dist{Mean: time.Second}
	o.MaxRunning = 2
	return o
}

// launch starts streaming requests (some with faults) and returns once
// each has its headers; bodies are drained in the background.
func launch(ctx context.Context, t *testing.T, client *http.Client, url string) *sync.WaitGroup {
	t.Helper()
	var wg sync.WaitGroup
	for _, fault := range []string{"", "", "", "", "stall", "stall_mid"} {
		b := `{"messages":[{"role":"user","content":"hi"}],"max_tokens":50,"stream":true}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(b))
		if fault != "" {
			req.Header.Set(FaultHeader, fault)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, bufio.NewReader(resp.Body))
		})
	}
	return &wg
}

func TestClientDisconnectFreesEverything(t *testing.T) {
	baseline := runtime.NumGoroutine()
	s := New(slowOptions())
	ts := httptest.NewServer(s)
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}

	ctx, cancel := context.WithCancel(context.Background())
	wg := launch(ctx, t, client, ts.URL)
	eventually(t, 2*time.Second, "requests running and queued", func() bool {
		st := s.Stats()
		return st.Running == 2 && st.Waiting == 3
	})
	cancel()
	wg.Wait()
	eventually(t, 2*time.Second, "engine drained", func() bool {
		st := s.Stats()
		return st.Running == 0 && st.Waiting == 0 && st.UsedBlocks == 0
	})

	tr.CloseIdleConnections()
	ts.Close()
	eventually(t, 2*time.Second, "goroutines back to baseline", func() bool {
		return runtime.NumGoroutine() <= baseline
	})
	s.Close()
}

func TestCloseAbortsInFlight(t *testing.T) {
	h := start(t, slowOptions())
	wg := launch(context.Background(), t, h.client, h.ts.URL)
	eventually(t, 2*time.Second, "requests in flight", func() bool { return h.s.Stats().Running == 2 })
	began := time.Now()
	h.s.Close()
	wg.Wait()
	if d := time.Since(began); d > time.Second {
		t.Errorf("Close took %v to end in-flight requests", d)
	}
	if st := h.s.Stats(); st.Running+st.Waiting+st.UsedBlocks != 0 {
		t.Errorf("engine not drained: %+v", st)
	}
	resp := h.post(context.Background(), "/v1/chat/completions", chatBody(2, nil))
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d", resp.StatusCode)
	}
}
