package main

import (
	"fmt"
	"slices"
)

// summary compares the second half of the run with the first: after the
// warm-up, memory and goroutines should stay flat.
func summary(samples []*sample) {
	if len(samples) < 3 {
		fmt.Println("summary: too few samples")
		return
	}
	warm := samples[1:] // the first sample is still warming up
	stat := func(name string, get func(*sample) float64, scale float64, unit string) {
		vals := make([]float64, len(warm))
		for i, s := range warm {
			vals[i] = get(s) / scale
		}
		first, last := vals[0], vals[len(vals)-1]
		fmt.Printf("  %-10s after warm-up %8.1f%s, min %8.1f, max %8.1f, at end %8.1f (%+.1f%%)\n",
			name, first, unit, slices.Min(vals), slices.Max(vals), last, 100*(last-first)/first)
	}
	fmt.Println("summary:")
	stat("rss", func(s *sample) float64 { return s.rss }, 1<<20, " MiB")
	stat("heap", func(s *sample) float64 { return s.heap }, 1<<20, " MiB")
	stat("goroutines", func(s *sample) float64 { return s.goroutines }, 1, "")
	stat("fds", func(s *sample) float64 { return s.fds }, 1, "")
	last := samples[len(samples)-1]
	total := 0.0
	for _, v := range last.failures {
		total += v
	}
	fmt.Printf("  probes %.0f (%.1f/s), failures %.0f (%.1f%%), skipped %.0f\n",
		last.probes, last.probes/last.at.Seconds(), total, 100*total/max(last.probes, 1), last.skipped)
	fmt.Printf("  failures: %s\n", reasons(last.failures))
}
