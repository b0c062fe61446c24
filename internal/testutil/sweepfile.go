package testutil

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteSweep writes a sweep result in dir: the knee keys first (as bench
// writes them) or after its points, and points points of requests
// numbers each.
func WriteSweep(t testing.TB, dir string, kneeFirst bool, points, requests int) string {
	t.Helper()
	p := filepath.Join(dir, "sweep.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	knee := `"knee_goodput_percent": 99, "knee_request_rate": 9.5, "knee_achieved_request_rate": 8.25, "knee": "8.25 req/s achieved"`
	fmt.Fprint(w, "{")
	if kneeFirst {
		fmt.Fprint(w, knee+", ")
	}
	fmt.Fprint(w, `"llm_prober_prompts": "salted", "points": [`)
	for i := range points {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		// The last point is the knee's, the first a synchronous one.
		rate, burstiness := fmt.Sprint(i), 0.5
		if i == points-1 {
			rate = "9.5"
		}
		if i == 0 {
			burstiness = 0
		}
		fmt.Fprintf(w, "\n"+`{"kind": "rate", "request_rate": %s, "ttfts": [`, rate)
		for j := range requests {
			if j > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprint(w, "0.0123456")
		}
		fmt.Fprintf(w, `], "llm_prober_workload": "synthetic: 512 input tokens, 128 output tokens (±0.2), seed %d", "burstiness": %g, "nested": {"a": [[1], {"b": null}]}}`, i, burstiness)
	}
	fmt.Fprint(w, "]")
	if !kneeFirst {
		fmt.Fprint(w, ", "+knee)
	}
	fmt.Fprint(w, "}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
