package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Rates and shapes no run can keep are refused with the file and field:
// request_rate 5e-324 overflowed the run's clock and waited for ever.
// A syntax error names its line; a FIFO is refused without blocking.
func TestLoadDerivedWorkloadNumbers(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "w.json")
	if err := testDerived().Save(good); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	for _, c := range []struct{ from, to, want string }{
		{`"request_rate": 2.5`, `"request_rate": 5e-324`, "request_rate 5e-324 is not 0 (none derived) or a rate in [1e-06, 1e+06]"},
		{`"request_rate": 2.5`, `"request_rate": 1e300`, "request_rate 1e+300"},
		{`"shape": `, `"shape": 5e-324, "x_shape": `, `unknown field "x_shape"`},
		{`"request_rate": 2.5`, `"request_rate": 2.5,,`, "bad.json:LINE: not a workload file"},
	} {
		body := strings.Replace(string(raw), c.from, c.to, 1)
		if body == string(raw) {
			t.Fatalf("%q not in the file", c.from)
		}
		line := strings.Count(body[:strings.Index(body, c.to)], "\n") + 1
		c.want = strings.Replace(c.want, "LINE", fmt.Sprint(line), 1)
		p := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadDerivedWorkload(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
	w := testDerived()
	w.Burstiness.Shape = 5e-324
	p := filepath.Join(dir, "shape.json")
	if err := w.Save(p); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDerivedWorkload(p); err == nil || !strings.Contains(err.Error(), "burstiness.shape 5e-324") {
		t.Errorf("shape 5e-324: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDerivedWorkload(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
}

// rangeProm answers the finished-request range query with a counter
// rising by 20 a minute over the window, and instant queries as fakeProm.
type rangeProm struct {
	fakeProm
	end time.Time
}

func (f rangeProm) QueryRange(_ context.Context, q string, r v1.Range, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	var vs []model.SamplePair
	for t, c := r.Start, 0.0; !t.After(r.End); t, c = t.Add(r.Step), c+20 {
		vs = append(vs, model.SamplePair{Timestamp: model.TimeFromUnixNano(t.UnixNano()), Value: model.SampleValue(c)})
	}
	return model.Matrix{{Metric: model.Metric{"target": "a"}, Values: vs}}, nil, nil, nil
}

// Histogram bounds of 1e12 and 1e15 tokens are refused (they sized a
// prompt of that many tokens: makeslice panicked), and a NaN or +Inf
// from count_over_time no longer spins the fit's loop for ever.
func TestDeriveWorkloadHostileAnswers(t *testing.T) {
	ctx := context.Background()
	o := DeriveOptions{Selector: `{target="a"}`, Window: 3 * time.Hour, End: time.Unix(1e9, 0)}
	huge := fakeProm{vectors: map[string]model.Vector{
		promPromptTokens + "_bucket": buckets(map[string]float64{"100": 100, "1e12": 150, "1e15": 200, "+Inf": 200}),
		promGenTokens + "_bucket":    buckets(map[string]float64{"10": 200, "+Inf": 200}),
	}}
	if _, err := DeriveWorkload(ctx, huge, o); err == nil || !strings.Contains(err.Error(), "(100, 1e+12]: bench sends at most 1048576 tokens") ||
		!strings.Contains(err.Error(), promPromptTokens) {
		t.Errorf("1e12 bounds: %v", err)
	}
	over := fakeProm{vectors: map[string]model.Vector{
		promPromptTokens + "_bucket": buckets(map[string]float64{"2e6": 100, "+Inf": 200}),
		promGenTokens + "_bucket":    buckets(map[string]float64{"10": 200, "+Inf": 200}),
	}}
	if _, err := DeriveWorkload(ctx, over, o); err == nil || !strings.Contains(err.Error(), "(0, 2e+06]") {
		t.Errorf("a 2e6 bound: %v", err)
	}
	for _, bad := range []float64{nanValue(), posInf()} {
		q := rangeProm{fakeProm: fakeProm{vectors: map[string]model.Vector{
			promPromptTokens + "_bucket": buckets(map[string]float64{"100": 100, "+Inf": 200}),
			promGenTokens + "_bucket":    buckets(map[string]float64{"10": 200, "+Inf": 200}),
			promFinished:                 {{Metric: model.Metric{}, Value: model.SampleValue(bad)}},
		}}, end: o.End}
		done := make(chan error, 1)
		go func() {
			_, err := DeriveWorkload(ctx, q, o)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("count_over_time %g: %v", bad, err)
			}
		case <-time.After(time.Minute): // a hang guard, not a speed check
			t.Fatalf("count_over_time %g: the derivation never returned", bad)
		}
	}
}

func nanValue() float64 { z := 0.0; return z / z }
func posInf() float64   { z := 0.0; return 1 / z }
