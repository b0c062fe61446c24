package otelmetrics

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// Past MaxSeries attribute sets, new ones fold into the SDK's overflow
// series: a config with many targets cannot grow a push without end.
func TestSeriesCapped(t *testing.T) {
	rc := newReceiver(t)
	m, err := New(config.OTLPMetrics{Endpoint: rc.url(), Interval: model.Duration(time.Hour)}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * MaxSeries {
		m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m" + strconv.Itoa(i), Duration: time.Second})
	}
	_ = m.Shutdown(context.Background())
	ps := rc.points("gen_ai.client.operation.duration")
	if len(ps) > MaxSeries {
		t.Errorf("%d series pushed, over MaxSeries (%d)", len(ps), MaxSeries)
	}
	if n, _ := totals(ps, nil); n != 3*MaxSeries {
		t.Errorf("%d requests counted, want every one (%d), the excess in the overflow series", n, 3*MaxSeries)
	}
}
