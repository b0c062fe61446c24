package sweep

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// The sweep file is valid JSON when a point has no file of its own and
// its figures are NaN or infinite (a point where nothing succeeded, the
// max-throughput point's rate): those are written as strings.
func TestWriteJSONNonFinite(t *testing.T) {
	rep := summary.Summarize(&loadtest.Run{}, summary.SLO{}, []float64{50, 99})
	rep.Burstiness, rep.RequestThroughput = math.NaN(), math.Inf(1)
	sw := &Sweep{KneeGoodput: 99, Prompts: "fresh", Points: []*Point{{Kind: PointMax, Rate: math.Inf(1), Report: rep, Verdict: "requests_failing"}}}
	path := filepath.Join(t.TempDir(), "sweep.json")
	if err := WriteJSON(path, sw, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Points []map[string]any `json:"points"`
		Knee   any              `json:"knee"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	if len(got.Points) != 1 || got.Points[0]["kind"] != PointMax || got.Points[0]["bottleneck"] != "requests_failing" || got.Knee != nil {
		t.Fatalf("points %+v, knee %v", got.Points, got.Knee)
	}
	if p := got.Points[0]; p["burstiness"] != "NaN" || p["request_throughput"] != "+Inf" {
		t.Errorf("non-finite figures: burstiness %v, request_throughput %v", p["burstiness"], p["request_throughput"])
	}
}
