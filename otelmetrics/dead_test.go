package otelmetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// blackhole takes a push and never answers until the test ends.
func blackhole(t testing.TB) (url string, arrived <-chan struct{}) {
	t.Helper()
	got := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL + "/v1/metrics", got
}

func deadMeter(t testing.TB, url string) *Meter {
	t.Helper()
	m, err := New(config.OTLPMetrics{Endpoint: url, Interval: model.Duration(time.Hour), Timeout: model.Duration(time.Hour)}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// While a push hangs on an endpoint that never answers, requests keep
// being recorded (Record never waits on the push: were it to, this test
// would hang, not fail late), and 200,000 of them with 10,000 distinct
// models, far past MaxSeries, cost bounded memory.
func TestDeadEndpointBoundedAndNonBlocking(t *testing.T) {
	url, arrived := blackhole(t)
	m := deadMeter(t, url)
	m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m"}) // something to push
	flushed := make(chan struct{})
	go func() { _ = m.ForceFlush(context.Background()); close(flushed) }()
	<-arrived // a push is in flight and will not come back
	gaps := make([]time.Duration, 16)
	for i := range gaps {
		gaps[i] = 5 * time.Millisecond
	}
	before := heap()
	for i := range 200_000 {
		m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m" + strconv.Itoa(i%10_000), Address: "127.0.0.1", Port: 8000,
			Duration: 100 * time.Millisecond, TTFC: 20 * time.Millisecond, HasTTFC: true, Chunks: gaps,
			OutputTokens: 17, HasOutput: true, InputTokens: 10, HasInput: true})
	}
	grew := int64(heap()) - int64(before)
	select {
	case <-flushed:
		t.Fatal("the push returned: the endpoint was meant to hang it throughout")
	default:
	}
	const bound = 16 << 20
	t.Logf("heap growth after 200,000 records, 10,000 models, a hung push: %.1f MiB (bound %d MiB)", float64(grew)/(1<<20), bound>>20)
	if grew > bound {
		t.Errorf("heap grew %d bytes, over %d: the series are not bounded", grew, bound)
	}
	_ = m.Shutdown(canceled())
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// BenchmarkRecordProbe is what a probe's observation costs the daemon
// with the push on and its endpoint hung: a 17-chunk probe.
func BenchmarkRecordProbe(b *testing.B) {
	url, _ := blackhole(b)
	m := deadMeter(b, url)
	defer func() { _ = m.Shutdown(canceled()) }()
	gaps := make([]time.Duration, 16)
	r := &Request{Operation: OperationChat, Provider: "vllm", Model: "m", Address: "127.0.0.1", Port: 8000, Target: "t", Module: "chat",
		Duration: 100 * time.Millisecond, TTFC: 20 * time.Millisecond, HasTTFC: true, Chunks: gaps,
		OutputTokens: 17, HasOutput: true, InputTokens: 10, HasInput: true}
	b.ReportAllocs()
	for b.Loop() {
		m.Record(r)
	}
}
