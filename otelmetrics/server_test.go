package otelmetrics

import (
	"context"
	"maps"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/protobuf/proto"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/prober"
)

// The mock's own vLLM histograms, scraped and re-exported by the real
// collector, arrive as gen_ai.server.*: count, sum and buckets those the
// server exposes, bounds as the server's.
func TestServerHistogramsTranslated(t *testing.T) {
	rc := newReceiver(t)
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	cfg := probeConfig(tg, rc.url())
	tg.ServerMetrics.Interval = model.Duration(time.Second)
	tg.ServerMetrics.Timeout = model.Duration(time.Second)
	for range 4 {
		if r := prober.Run(context.Background(), client, tg, cfg.Modules["chat"], "p", "test"); !r.Success() {
			t.Fatal(r.Err)
		}
	}
	servers := collector.NewManager(log.NewNopLogger())
	t.Cleanup(servers.Stop)
	servers.Apply(cfg.Targets)
	reg := prometheus.NewRegistry()
	reg.MustRegister(servers)
	// The collector scrapes on its own ticker: wait for its first scrape.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		fams, _ := reg.Gather()
		if slices.ContainsFunc(fams, func(f *dto.MetricFamily) bool { return f.GetName() == "llm_prober_server_e2e_request_latency_seconds" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the collector never scraped the mock")
		}
	}
	var p Probes
	p.Apply(cfg, reg, "test", log.NewNopLogger())
	p.Stop(context.Background())

	own := scrape(t, tg.URL+"/metrics")
	for src, name := range map[string]string{
		"vllm:e2e_request_latency_seconds":           "gen_ai.server.request.duration",
		"vllm:time_to_first_token_seconds":           "gen_ai.server.time_to_first_token",
		"vllm:request_time_per_output_token_seconds": "gen_ai.server.time_per_output_token",
	} {
		want := own[src].GetMetric()[0].GetHistogram()
		ps := rc.points(name)
		if len(ps) != 1 {
			t.Fatalf("%s: %d points, want 1", name, len(ps))
		}
		got := ps[0]
		if got.GetCount() != want.GetSampleCount() || math.Abs(got.GetSum()-want.GetSampleSum()) > 1e-9 || got.GetCount() < 4 {
			t.Errorf("%s: count %d sum %v, want the server's %s: %d, %v", name, got.GetCount(), got.GetSum(), src, want.GetSampleCount(), want.GetSampleSum())
		}
		var bounds []float64
		for _, b := range want.GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) {
				bounds = append(bounds, b.GetUpperBound())
			}
		}
		if !slices.Equal(got.GetExplicitBounds(), bounds) || len(got.GetBucketCounts()) != len(bounds)+1 {
			t.Errorf("%s: bounds %v (%d counts), want the server's %v", name, got.GetExplicitBounds(), len(got.GetBucketCounts()), bounds)
		}
		a := attrs(got)
		if a["gen_ai.provider.name"] != "vllm" || a["llm_prober.target"] != "mock" || a["server.address"] == "" {
			t.Errorf("%s attributes %v", name, a)
		}
		if _, ok := a["gen_ai.operation.name"]; ok {
			t.Errorf("%s claims an operation the server does not record: %v", name, a)
		}
	}
	if ps := rc.points("gen_ai.server.time_per_output_chunk"); len(ps) != 0 {
		t.Error("ITL (per engine step) translated")
	}
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func histFamily(name string, labels map[string]string, count uint64, sum float64, cum ...uint64) *dto.MetricFamily {
	m := &dto.Metric{Histogram: &dto.Histogram{SampleCount: proto.Uint64(count), SampleSum: proto.Float64(sum)}}
	for _, k := range slices.Sorted(maps.Keys(labels)) { // as Gather sorts them
		m.Label = append(m.Label, &dto.LabelPair{Name: proto.String(k), Value: proto.String(labels[k])})
	}
	for i, c := range cum {
		m.Histogram.Bucket = append(m.Histogram.Bucket, &dto.Bucket{UpperBound: proto.Float64(float64(i + 1)), CumulativeCount: proto.Uint64(c)})
	}
	m.Histogram.Bucket = append(m.Histogram.Bucket, &dto.Bucket{UpperBound: proto.Float64(math.Inf(1)), CumulativeCount: proto.Uint64(count)})
	return &dto.MetricFamily{Name: proto.String(name), Type: dto.MetricType_HISTOGRAM.Enum(), Metric: []*dto.Metric{m}}
}

// Per-bucket counts from cumulative ones; TGI's per-token mean (prefill
// included) is not a TPOT; a count that falls (a restart) starts the
// series anew; a histogram whose counts fall across buckets is dropped.
func TestServerTranslationRules(t *testing.T) {
	count := uint64(10)
	gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		return []*dto.MetricFamily{
			histFamily("llm_prober_server_e2e_request_latency_seconds", map[string]string{"backend": "sglang", "target": "a", "model": "m"}, count, 12.5, 2, 7),
			histFamily("llm_prober_server_time_per_output_token_seconds", map[string]string{"backend": "tgi", "target": "b", "model": "m"}, 3, 1, 1, 2),
			histFamily("llm_prober_server_time_to_first_token_seconds", map[string]string{"backend": "vllm", "target": "c", "model": "m"}, 3, 1, 2, 1),
			histFamily("llm_prober_server_inter_token_latency_seconds", map[string]string{"backend": "vllm", "target": "c", "model": "m"}, 3, 1, 1, 2),
		}, nil
	})
	now := time.Unix(1000, 0)
	s := &serverHistograms{g: gather, starts: map[string]seriesStart{}, now: func() time.Time { return now },
		targets: map[string]Endpoint{"a": {Address: "sglang.local", Port: 30000}}}
	sm, err := s.Produce(context.Background())
	if err != nil || len(sm) != 1 {
		t.Fatalf("Produce: %v, %d scopes", err, len(sm))
	}
	var names []string
	for _, m := range sm[0].Metrics {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"gen_ai.server.request.duration"}) {
		t.Fatalf("translated %v, want only the SGLang request duration", names)
	}
	dp := firstPoint(t, s)
	if !slices.Equal(dp.Bounds, []float64{1, 2}) || !slices.Equal(dp.BucketCounts, []uint64{2, 5, 3}) || dp.Count != 10 || dp.Sum != 12.5 {
		t.Errorf("point %+v", dp)
	}
	if v, _ := dp.Attributes.Value(keyAddress); v.AsString() != "sglang.local" {
		t.Errorf("server.address %q", v.AsString())
	}
	start := dp.StartTime
	now = now.Add(time.Minute)
	if dp := firstPoint(t, s); !dp.StartTime.Equal(start) {
		t.Errorf("start moved without a restart: %v → %v", start, dp.StartTime)
	}
	count = 8 // the server restarted
	if dp := firstPoint(t, s); !dp.StartTime.Equal(now) {
		t.Errorf("after a restart the start is %v, want %v", dp.StartTime, now)
	}
}

func firstPoint(t *testing.T, s *serverHistograms) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	sm, err := s.Produce(context.Background())
	if err != nil || len(sm) == 0 {
		t.Fatalf("Produce: %v", err)
	}
	return sm[0].Metrics[0].Data.(metricdata.Histogram[float64]).DataPoints[0]
}
