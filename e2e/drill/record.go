package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// recorded are the raw series the rules read, written as promtool
// input_series so that unit tests replay the drill's real shapes.
var recorded = []string{
	"up", "llm_prober_build_info", "llm_prober_target_info",
	"llm_prober_probes_total", "llm_prober_probes_good_total", "llm_prober_probe_failures_total",
	"llm_prober_slo_violations_total", "llm_prober_slo_seconds",
	"llm_prober_server_scrape_success", "llm_prober_server_kv_cache_usage_ratio",
	"llm_prober_server_requests_waiting", "llm_prober_server_requests_running",
	"llm_prober_server_preemptions_total", "llm_prober_server_requests_finished_total",
}

// recordStep is the interval of the recorded series (and of the tests).
const recordStep = 15 * time.Second

// Labels that change every run or that no rule reads are dropped.
var dropLabels = map[string]bool{"url": true, "version": true, "revision": true, "branch": true, "goversion": true,
	"goos": true, "goarch": true, "tags": true}

func recordSeries(ctx context.Context, api promAPI, from, to time.Time, file string, r result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded by the alert drill (%s) on %s: step %s, t=0 is %s before the drill's start.\n",
		r.mode.name, r.start.UTC().Format("2006-01-02 15:04 MST"), recordStep, dur(r.start.Sub(from)))
	fmt.Fprintf(&b, "# The dead target was killed at t=%s, llm-prober at t=%s.\n",
		dur(r.targetKilled.Sub(from)), dur(r.proberKilled.Sub(from)))
	b.WriteString("input_series:\n")
	steps := int(to.Sub(from) / recordStep)
	for _, name := range recorded {
		series, err := api.queryRange(ctx, name, from, to, recordStep)
		if err != nil {
			return err
		}
		var lines []string
		for _, s := range series {
			lines = append(lines, fmt.Sprintf("  - series: '%s'\n    values: '%s'\n", seriesName(s.Metric), values(s, from, steps)))
		}
		sort.Strings(lines)
		b.WriteString(strings.Join(lines, ""))
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

func seriesName(m map[string]string) string {
	var ls []string
	for k, v := range m {
		if k == "__name__" || dropLabels[k] {
			continue
		}
		if k == "instance" {
			v = "prober:9775" // ports change every run
		}
		ls = append(ls, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(ls)
	return m["__name__"] + "{" + strings.Join(ls, ", ") + "}"
}

// values writes one value per step, run-length encoded (vxN repeats v N+1
// times); a series that disappears becomes stale, then _ (no sample).
func values(s rangeSeries, from time.Time, steps int) string {
	var toks []string
	seen := false
	prevMissing := false
	for i := 0; i <= steps; i++ {
		v, ok := s.Values[from.Add(time.Duration(i)*recordStep).Unix()]
		switch {
		case ok:
			toks = append(toks, num(v))
			seen, prevMissing = true, false
		case seen && !prevMissing:
			toks = append(toks, "stale")
			prevMissing = true
		default:
			toks = append(toks, "_")
		}
	}
	// Run-length encode.
	var out []string
	for i := 0; i < len(toks); {
		j := i
		for j+1 < len(toks) && toks[j+1] == toks[i] && toks[i] != "stale" {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%sx%d", toks[i], j-i))
		} else {
			out = append(out, toks[i])
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}

func num(v float64) string {
	if math.Abs(v-math.Round(v)) < 1e-9 {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
