package kneefile

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// A file as bench writes it is read up to the knee's point: what follows
// is never read (a sweep of a million requests loads at once).
func TestKneeFileReadsNoFurther(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sweep.json")
	if err := os.WriteFile(p, []byte(`{"knee_request_rate": 4, "knee_achieved_request_rate": 3, "points": [{"request_rate": 2, "llm_prober_workload": "v"}, `+
		`{"request_rate": 4, "llm_prober_workload": "w, seed 1"}, {not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := Read(p); err != nil || k.Rate != 3 || k.Workload != "w" {
		t.Errorf("got %+v, %v", k, err)
	}
}

// Reading stops at the cap: a knee past it is not looked for.
func TestKneeFileCap(t *testing.T) {
	p := testutil.WriteSweep(t, t.TempDir(), false, 4, 80_000) // about 1.6 MB, the knee at the end
	_, err := read(p, 1<<20)
	if err == nil || err.Error() != p+": no knee in the first 1 MiB" {
		t.Errorf("got %v", err)
	}
	if k, err := read(p, 4<<20); err != nil || k.Rate != 8.25 {
		t.Errorf("under the cap: %+v, %v", k, err)
	}
	// The knee first, its point past the cap: the knee, its workload unknown.
	p = testutil.WriteSweep(t, t.TempDir(), true, 4, 80_000)
	if k, err := read(p, 1<<20); err != nil || k.Rate != 8.25 || k.Workload != "" || !math.IsNaN(k.PromptMean) {
		t.Errorf("knee first, point past the cap: %+v, %v", k, err)
	}
}

// BenchmarkRead reads the knee of a 3 MB sweep result: as bench
// writes it (the knee first, read up to the first point) and with the
// knee after every point (read token by token to the end).
func BenchmarkRead(b *testing.B) {
	for _, kneeFirst := range []bool{true, false} {
		b.Run(fmt.Sprintf("knee_first=%v", kneeFirst), func(b *testing.B) {
			p := testutil.WriteSweep(b, b.TempDir(), kneeFirst, 20, 15_000)
			for b.Loop() {
				if _, err := Read(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzKneeFile feeds arbitrary bytes as a knee file: never a panic, never
// more than the caps; an accepted knee is within its bounds (no 5e-324: a
// headroom of −Inf), its workload a short valid label
// value and its lengths finite; a refusal is one line naming the file.
func FuzzKneeFile(f *testing.F) {
	for _, name := range []string{"testdata/bad/capacity_garbled.json", "testdata/bad/capacity_no_knee.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"knee_achieved_request_rate": 3, "points": [{"llm_prober_workload": "w, seed 1", "burstiness": 0.5}, {`))
	f.Add([]byte(`{"points": [[], {}], "knee_achieved_request_rate": 1e308, "knee_request_rate": "x"}`))
	f.Add([]byte(`{"knee_achieved_request_rate": 2, "points": [{"llm_prober_workload": "` + strings.Repeat("é", 300) + `"}]}`))
	f.Add([]byte(`{"knee_goodput_percent": 99, "llm_prober_knee_status": "found", "knee_request_rate": 4, "knee_achieved_request_rate": 3.9,
		"points": [{"request_rate": "inf", "completed": 1}, {"request_rate": 4, "completed": 10, "total_input_tokens": 5120, "total_output_tokens": 1280,
		"llm_prober_workload": "w\u00e9\ud800, seed 2", "burstiness": 1, "requests": [{"ttft": 0.1, "itls": [1e-3, 2E+1, -0.5]}, null, true, false]}]}`))
	f.Add([]byte(`{"llm_prober_knee_status": "lower_bound", "llm_prober_knee_lower_bound_request_rate": 20, "knee_achieved_request_rate": 20}`))
	f.Add([]byte(`{"knee_achieved_request_rate": 5e-324} `))
	f.Add([]byte(`{"x": ` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `, "knee_achieved_request_rate": 1}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "knee.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := Read(p)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, p) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: not one line naming the file", msg)
			}
			return
		}
		if !(k.Rate >= MinRate && k.Rate <= MaxRate) || len(k.Workload) > maxWorkloadBytes || !utf8.ValidString(k.Workload) ||
			math.IsInf(k.PromptMean, 0) || math.IsInf(k.OutputMean, 0) {
			t.Errorf("knee %+v from %q", k, b)
		}
		if headroom := 1 - 1e9/k.Rate; math.IsInf(headroom, 0) || math.IsNaN(headroom) {
			t.Errorf("knee %g makes the headroom %g", k.Rate, headroom)
		}
	})
}
