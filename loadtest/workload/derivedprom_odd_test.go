package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// fakeProm answers instant queries by the metric they name, range
// queries with an empty matrix, and fails queries that contain failOn.
type fakeProm struct {
	vectors map[string]model.Vector
	failOn  string
}

func (f fakeProm) Query(_ context.Context, q string, _ time.Time, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	if f.failOn != "" && strings.Contains(q, f.failOn) {
		return nil, nil, nil, errors.New("server error")
	}
	for name, v := range f.vectors {
		if strings.Contains(q, name+"{") {
			return v, nil, nil, nil
		}
	}
	return model.Vector{}, nil, nil, nil
}

func (f fakeProm) QueryRange(_ context.Context, q string, _ v1.Range, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	if f.failOn != "" && strings.Contains(q, f.failOn) {
		return nil, nil, nil, errors.New("server error")
	}
	return model.Matrix{}, nil, nil, nil
}

func buckets(counts map[string]float64) model.Vector {
	var v model.Vector
	for le, c := range counts {
		v = append(v, &model.Sample{Metric: model.Metric{"target": "a", "le": model.LabelValue(le)}, Value: model.SampleValue(c)})
	}
	return v
}

// Answers Prometheus may give: too few requests, a failing query, no
// finished-request counter (no rate, no fit, said so), a bad selector or
// window, a malformed le.
func TestDeriveWorkloadOddAnswers(t *testing.T) {
	ctx := context.Background()
	o := DeriveOptions{Selector: `{target="a"}`, Window: time.Hour, End: time.Unix(1e9, 0)}
	few := fakeProm{vectors: map[string]model.Vector{
		promPromptTokens + "_bucket": buckets(map[string]float64{"100": 10, "+Inf": 30}),
	}}
	if _, err := DeriveWorkload(ctx, few, o); !errors.Is(err, ErrNoTraffic) || !strings.Contains(err.Error(), "30 requests in the window (at least 50") ||
		!strings.Contains(err.Error(), `selector "{target=\"a\"}", window 1h`) {
		t.Errorf("30 requests: %v", err)
	}
	ok := fakeProm{vectors: map[string]model.Vector{
		promPromptTokens + "_bucket": buckets(map[string]float64{"100": 100, "x": 5, "+Inf": 200}),
		promGenTokens + "_bucket":    buckets(map[string]float64{"10": 200, "+Inf": 200}),
	}}
	w, err := DeriveWorkload(ctx, ok, o)
	if err != nil {
		t.Fatal(err)
	}
	if w.RequestRate != 0 || w.Burstiness.Shape != 0 || w.PrefixCacheHitRate != nil || !strings.Contains(strings.Join(w.Notes, "\n"), "no "+promFinished) {
		t.Errorf("no counter: rate %g, fit %+v, hit rate %v, notes %q", w.RequestRate, w.Burstiness, w.PrefixCacheHitRate, w.Notes)
	}
	if w.Input.Requests != 200 || w.Input.OverflowShare() != 0.5 {
		t.Errorf("input %+v: the malformed le is skipped", w.Input)
	}
	ok.failOn = promFinished
	if _, err := DeriveWorkload(ctx, ok, o); err == nil || !strings.Contains(err.Error(), "server error") || !strings.Contains(err.Error(), promFinished) {
		t.Errorf("a failing range query: %v", err)
	}
	ok.failOn = promPrefixHits
	if _, err := DeriveWorkload(ctx, ok, o); err == nil || !strings.Contains(err.Error(), "prefix cache") {
		t.Errorf("a failing prefix query: %v", err)
	}
	for _, bad := range []DeriveOptions{{Selector: `target="a"`, Window: time.Hour}, {Window: 30 * time.Second}} {
		if _, err := DeriveWorkload(ctx, ok, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := DeriveWorkload(ctx, fakeProm{}, o); err == nil || !strings.Contains(err.Error(), "no series in the window") {
		t.Errorf("no histogram: %v", err)
	}
}
