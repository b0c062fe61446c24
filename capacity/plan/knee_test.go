package plan

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

func TestReadKnee(t *testing.T) {
	dir := t.TempDir()
	k, err := ReadKnee(testutil.TempFile(t, "ok.json", `{"knee_goodput_percent": 99, "knee_request_rate": 4, "knee_achieved_request_rate": 3.9,
		"points": [{"kind": "max-throughput", "request_rate": "inf", "completed": 10, "total_input_tokens": 1, "total_output_tokens": 1},
		{"kind": "rate", "request_rate": 2, "completed": 10, "total_input_tokens": 10, "total_output_tokens": 10},
		{"kind": "rate", "request_rate": 4, "completed": 10, "total_input_tokens": 5120, "total_output_tokens": 1280, "llm_prober_workload": "random 512/128",
		 "requests": [{"ttft": 0.1}]}]}`))
	if err != nil || k.Rate != 3.9 || k.Offered != 4 || k.PromptMean != 512 || k.OutputMean != 128 || k.Workload != "random 512/128" {
		t.Errorf("knee %+v, %v: want 3.9 achieved at 4 offered, 512/128 tokens", k, err)
	}
	// The daemon's reader and rule: the achieved rate or nothing.
	if _, err := ReadKnee(testutil.TempFile(t, "offered.json", `{"knee_goodput_percent": 99, "knee_request_rate": 4, "points": []}`)); err == nil ||
		!strings.Contains(err.Error(), "no knee_achieved_request_rate") {
		t.Errorf("offered only: %v", err)
	}
	// A knee point that was not run (or no points): lengths unknown.
	k, err = ReadKnee(testutil.TempFile(t, "nopoint.json", `{"knee_goodput_percent": 99, "knee_request_rate": 4, "knee_achieved_request_rate": 3.9, "points": []}`))
	if err != nil || k.Rate != 3.9 || !math.IsNaN(k.PromptMean) || k.Workload != "" {
		t.Errorf("no knee point: %+v, %v", k, err)
	}
	for name, c := range map[string]struct{ body, want string }{
		"noknee.json":  {`{"knee_goodput_percent": 99, "points": []}`, "found no knee"},
		"zero.json":    {`{"knee_goodput_percent": 99, "knee_achieved_request_rate": 0}`, "must be a rate between 1e-06 and 1e+09 req/s, got 0"},
		"run.json":     {`{"completed": 10, "request_rate": 4}`, "want a bench --sweep --output-json result"},
		"garbled.json": {`{"knee_goodput_percent": 99, "knee_request_rate": `, "the JSON ends early"},
		"string.json":  {`{"knee_goodput_percent": 99, "knee_achieved_request_rate": "NaN"}`, "knee_achieved_request_rate: want a number"},
		// Issue 31: a sweep that never saw a rate fail is no knee to plan from.
		"lower.json": {`{"knee_goodput_percent": 99, "llm_prober_knee_status": "lower_bound", "llm_prober_knee_lower_bound_request_rate": 20, "points": []}`,
			"knee above 20 req/s is a lower bound, not a knee"},
		// Issue 32: the same bounded reader as the daemon's.
		"deep.json":      {`{"x": ` + strings.Repeat("[", 100) + `]}`, "nested more than 64 deep"},
		"subnormal.json": {`{"knee_request_rate": 4, "knee_achieved_request_rate": 5e-324}`, "must be a rate between 1e-06 and 1e+09 req/s"},
		"empty.json":     {``, "the JSON ends early"},
	} {
		if _, err := ReadKnee(testutil.TempFile(t, name, c.body)); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file and %q", name, err, c.want)
		}
	}
	if _, err := ReadKnee(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "--knee-file") {
		t.Errorf("missing: %v", err)
	}
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := KneeFromRate(r); err == nil {
			t.Errorf("--knee-rate %g accepted", r)
		}
	}
}

func TestFloatJSON(t *testing.T) {
	for v, want := range map[float64]string{math.NaN(): "null", math.Inf(1): "null", 640: "640", 0.5: "0.5"} {
		if b, _ := Float(v).MarshalJSON(); string(b) != want {
			t.Errorf("%g: %s, want %s", v, b, want)
		}
	}
}
