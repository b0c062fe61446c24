package exposition

import (
	"bytes"
	"math"
	"testing"
	"time"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Whatever the label value and observations, the text output parses and
// the protobuf output decodes to the same value and counts.
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add("vllm-a", 0.05, 2.0, "p1")
	f.Add("a\"b\\c\nd", 0.0, -1.5, "")
	f.Add("ünïcode ✓", 1e-300, 1e300, "x\"y")
	f.Add("", math.Inf(1), 3.0, "id")
	f.Fuzz(func(t *testing.T, value string, v1, v2 float64, ex string) {
		if math.IsNaN(v1) || math.IsNaN(v2) || !utf8.ValidString(value) {
			t.Skip() // NaN never equals itself; label values from YAML are UTF-8
		}
		spec := NewHistogramSpec([]float64{0.1, 1}, 3, 8, time.Hour, "probe_id")
		h := NewHistogram(spec, time.Unix(1700000000, 0))
		h.Observe(v1, ex, time.Unix(1700000001, 0))
		h.Observe(v2, ex, time.Unix(1700000002, 0))
		ls := NewLabelSet(NewLabel("target", value))
		extra := NewLabel("reason", value)
		write := func(f Format) []byte {
			var b bytes.Buffer
			w := NewWriter(&b, f)
			w.Family("x_total", "Help with \\ and\nnewline.", dto.MetricType_COUNTER)
			w.Counter(ls, &extra, v1, 1)
			w.Family("y_seconds", "Y.", dto.MetricType_HISTOGRAM)
			w.Histogram(ls, h)
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}
		text := write(FormatText)
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(text))
		if err != nil {
			t.Fatalf("text does not parse: %v\n%s", err, text)
		}
		check := func(format string, fams map[string]*dto.MetricFamily) {
			c := fams["x_total"].GetMetric()[0]
			if got := c.GetCounter().GetValue(); got != v1 {
				t.Errorf("%s: counter %v, want %v", format, got, v1)
			}
			for _, lp := range c.Label {
				if lp.GetValue() != value {
					t.Errorf("%s: label %s=%q, want %q", format, lp.GetName(), lp.GetValue(), value)
				}
			}
			if n := fams["y_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 2 {
				t.Errorf("%s: histogram count %d, want 2", format, n)
			}
		}
		check("text", fams)
		mfs, err := decodeProtobuf(bytes.NewReader(write(FormatProtobuf)))
		if err != nil {
			t.Fatalf("protobuf does not decode: %v", err)
		}
		pb := map[string]*dto.MetricFamily{}
		for _, mf := range mfs {
			pb[mf.GetName()] = mf
		}
		check("protobuf", pb)
	})
}
