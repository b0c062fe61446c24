package testutil

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
)

// Traffic is served traffic with a known shape, as llm-prober re-exports
// it (llm_prober_server_requests_finished_total and the prompt/generation
// length histograms), for backfilling a Prometheus: a day of mock traffic
// in seconds instead of a day.
type Traffic struct {
	Start    time.Time
	Duration time.Duration
	Interval time.Duration // between samples (a scrape interval)
	// Rate is the total served rate in req/s over the interval ending at
	// t, shared between the targets.
	Rate    func(t time.Time) float64
	Targets []TrafficTarget
	// Reasons split finished requests by finish reason (default all "stop").
	Reasons map[string]float64
	// Prompt and Generation are the length mixes of every request (none:
	// no histogram is written).
	Prompt, Generation []Length
	Buckets            []float64 // upper bounds of the histograms, +Inf added
}

// TrafficTarget is one target's share of the rate, the probers (instance
// labels) that re-export it — identical copies, as HA probers have — and
// when, if ever, its server restarted (its counters start again from 0).
type TrafficTarget struct {
	Name      string
	Share     float64
	Instances []string
	ResetAt   time.Time
}

// Length is a share of requests with this many tokens.
type Length struct {
	Tokens float64
	Share  float64
}

// Mean is the mean length of a mix.
func Mean(ls []Length) float64 {
	var m float64
	for _, l := range ls {
		m += l.Tokens * l.Share
	}
	return m
}

// OpenMetrics renders the traffic as OpenMetrics text with timestamps,
// ready for promtool tsdb create-blocks-from openmetrics.
func (tr Traffic) OpenMetrics() []byte {
	var b bytes.Buffer
	reasons := tr.Reasons
	if len(reasons) == 0 {
		reasons = map[string]float64{"stop": 1}
	}
	steps := int(tr.Duration / tr.Interval)
	// each is called with every target's per-interval request counts,
	// cumulative since its last restart.
	each := func(fn func(tt TrafficTarget, inst string, ts float64, cum, inc float64)) {
		for _, tt := range tr.Targets {
			for _, inst := range tt.Instances {
				var cum float64
				for i := 0; i <= steps; i++ {
					t := tr.Start.Add(time.Duration(i) * tr.Interval)
					inc := 0.0
					if i > 0 {
						inc = tr.Rate(t) * tr.Interval.Seconds() * tt.Share
					}
					if !tt.ResetAt.IsZero() && !t.Before(tt.ResetAt) && t.Add(-tr.Interval).Before(tt.ResetAt) {
						cum = 0 // restarted just after the previous scrape
					}
					cum += inc
					fn(tt, inst, float64(t.UnixMilli())/1000, cum, inc)
				}
			}
		}
	}
	base := func(tt TrafficTarget, inst string) string {
		return fmt.Sprintf(`job="llm-prober",instance=%q,target=%q,backend="vllm",model="mock-model",engine="0"`, inst, tt.Name)
	}
	b.WriteString("# HELP llm_prober_server_requests_finished Requests finished by the server.\n# TYPE llm_prober_server_requests_finished counter\n")
	for _, r := range sortedKeys(reasons) {
		each(func(tt TrafficTarget, inst string, ts, cum, _ float64) {
			fmt.Fprintf(&b, "llm_prober_server_requests_finished_total{%s,reason=%q} %s %s\n", base(tt, inst), r, num(cum*reasons[r]), num(ts))
		})
	}
	for _, h := range []struct {
		name string
		mix  []Length
	}{{"llm_prober_server_request_prompt_tokens", tr.Prompt}, {"llm_prober_server_request_generation_tokens", tr.Generation}} {
		if len(h.mix) == 0 {
			continue
		}
		fmt.Fprintf(&b, "# HELP %s Tokens per finished request.\n# TYPE %s histogram\n", h.name, h.name)
		mean := Mean(h.mix)
		each(func(tt TrafficTarget, inst string, ts, cum, _ float64) {
			for _, ub := range append(append([]float64{}, tr.Buckets...), math.Inf(1)) {
				var share float64
				for _, l := range h.mix {
					if l.Tokens <= ub {
						share += l.Share
					}
				}
				le := num(ub)
				if math.IsInf(ub, 1) {
					le = "+Inf"
				}
				fmt.Fprintf(&b, "%s_bucket{%s,le=%q} %s %s\n", h.name, base(tt, inst), le, num(cum*share), num(ts))
			}
			fmt.Fprintf(&b, "%s_count{%s} %s %s\n", h.name, base(tt, inst), num(cum), num(ts))
			fmt.Fprintf(&b, "%s_sum{%s} %s %s\n", h.name, base(tt, inst), num(cum*mean), num(ts))
		})
	}
	b.WriteString("# EOF\n")
	return b.Bytes()
}

// Served is the exact number of requests served between from and to
// (sample times; every target together, each counted once).
func (tr Traffic) Served(from, to time.Time) float64 {
	var n float64
	for t := tr.Start.Add(tr.Interval); !t.After(tr.Start.Add(tr.Duration)); t = t.Add(tr.Interval) {
		if t.After(from) && !t.After(to) {
			n += tr.Rate(t) * tr.Interval.Seconds()
		}
	}
	return n
}

func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !bytes.ContainsAny([]byte(s), ".e") {
		s += ".0"
	}
	return s
}

func sortedKeys(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }
