package workload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// servedDay is a day of traffic whose arrivals come from bench's own
// generator (gamma shape 0.5, 3 req/s), re-exported by two HA probers
// (identical copies), with a server restart at 10:00; prompts 20 % of
// 100 tokens, 50 % of 700 and 30 % of 3,000 (above the top bound);
// generations all 150; a 25 % prefix-cache hit rate.
func servedDay(now time.Time, scrape time.Duration) (testutil.Traffic, []float64) {
	start := now.UTC().Truncate(time.Hour).Add(-26 * time.Hour)
	counts := minuteCounts(0.5, 42, 1440, 3)
	tr := testutil.Traffic{
		Start: start, Duration: 24 * time.Hour, Interval: scrape,
		// The requests of the minutes in the scrape interval ending at t.
		Rate: func(t time.Time) float64 {
			var n float64
			for m := t.Add(-scrape); m.Before(t); m = m.Add(time.Minute) {
				if i := int(m.Sub(start) / time.Minute); i >= 0 && i < len(counts) {
					n += counts[i]
				}
			}
			return n / scrape.Seconds()
		},
		Targets:    []testutil.TrafficTarget{{Name: "a", Share: 1, Instances: []string{"p1", "p2"}, ResetAt: start.Add(10 * time.Hour)}},
		Prompt:     []testutil.Length{{Tokens: 100, Share: 0.2}, {Tokens: 700, Share: 0.5}, {Tokens: 3000, Share: 0.3}},
		Generation: []testutil.Length{{Tokens: 150, Share: 1}},
		Buckets:    []float64{128, 256, 512, 1024, 2048},
	}
	return tr, counts
}

// prefixCounters appends the prefix-cache counters (25 % of prompt tokens
// hit) to the traffic's OpenMetrics text.
func prefixCounters(tr testutil.Traffic, counts []float64) []byte {
	om := bytes.TrimSuffix(tr.OpenMetrics(), []byte("# EOF\n"))
	b := bytes.NewBuffer(om)
	mean := testutil.Mean(tr.Prompt)
	for _, fam := range []struct {
		name  string
		share float64
	}{{"llm_prober_server_prefix_cache_queries", 1}, {"llm_prober_server_prefix_cache_hits", 0.25}} {
		fmt.Fprintf(b, "# HELP %s Prompt tokens.\n# TYPE %s counter\n", fam.name, fam.name)
		for _, inst := range []string{"p1", "p2"} {
			cum := 0.0
			for i := 0; i <= len(counts); i++ {
				if i > 0 {
					cum += counts[i-1] * mean * fam.share
				}
				ts := tr.Start.Add(time.Duration(i) * time.Minute)
				fmt.Fprintf(b, "%s_total{job=\"llm-prober\",instance=%q,target=\"a\",backend=\"vllm\",model=\"m\",engine=\"0\"} %g %d\n", fam.name, inst, cum, ts.Unix())
			}
		}
	}
	// Requests last 20 s on average: the fit counts 10-minute intervals.
	fmt.Fprintf(b, "# HELP llm_prober_server_e2e_request_latency_seconds Latency.\n# TYPE llm_prober_server_e2e_request_latency_seconds histogram\n")
	cum := 0.0
	for i := 0; i <= len(counts); i++ {
		if i > 0 {
			cum += counts[i-1]
		}
		ts := tr.Start.Add(time.Duration(i) * time.Minute).Unix()
		l := `job="llm-prober",instance="p1",target="a",backend="vllm",model="m",engine="0"`
		fmt.Fprintf(b, "llm_prober_server_e2e_request_latency_seconds_bucket{%s,le=\"+Inf\"} %g %d\n", l, cum, ts)
		fmt.Fprintf(b, "llm_prober_server_e2e_request_latency_seconds_count{%s} %g %d\n", l, cum, ts)
		fmt.Fprintf(b, "llm_prober_server_e2e_request_latency_seconds_sum{%s} %g %d\n", l, 20*cum, ts)
	}
	b.WriteString("# EOF\n")
	return b.Bytes()
}

// A day backfilled into the pinned Prometheus: the derived workload has
// the day's length shares and means, its exact mean rate, the generator's
// Gamma shape (as the fit of the exact counts, and within 15 % of 0.5),
// one target despite two probers, the restart taken in its stride, and
// the prefix that gives the hit rate.
func TestDeriveWorkloadFromPrometheus(t *testing.T) {
	tr, counts := servedDay(time.Now(), time.Minute)
	prom := testutil.BackfilledPrometheus(t, prefixCounters(tr, counts), testutil.PromOptions{})
	c, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	q := v1.NewAPI(c)
	end := tr.Start.Add(tr.Duration)
	w, err := DeriveWorkload(context.Background(), q, DeriveOptions{URL: prom.URL, Selector: `{target="a"}`, Window: 24 * time.Hour, End: end})
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, n := range counts {
		total += n
	}
	if math.Abs(w.Input.Requests-total) > 0.01*total || math.Abs(w.Input.Mean-1270) > 1 || math.Abs(w.Output.Mean-150) > 0.5 {
		t.Errorf("input %g requests mean %g, output mean %g; want %g, 1270, 150", w.Input.Requests, w.Input.Mean, w.Output.Mean, total)
	}
	wantShares := map[float64]float64{128: 0.2, 1024: 0.5, math.Inf(1): 0.3}
	for _, b := range w.Input.Buckets {
		key := b.Hi
		if b.Open {
			key = math.Inf(1)
		}
		if math.Abs(b.Requests/w.Input.Requests-wantShares[key]) > 0.002 {
			t.Errorf("input bucket %+v: share %.4f, want %g", b, b.Requests/w.Input.Requests, wantShares[key])
		}
	}
	if top := w.Input.Buckets[len(w.Input.Buckets)-1]; !top.Open || top.Lo != 2048 || top.Hi < 3000 {
		t.Errorf("top bucket %+v, want (2048, ≥3000] from the sum", top)
	}
	// Every minute after the first is covered: the rate and the fit are
	// those of the generator's exact counts.
	if want := total / (24 * 3600); math.Abs(w.RequestRate-want) > 1e-9*want {
		t.Errorf("rate %g, want %g", w.RequestRate, want)
	}
	exact := FitBurstiness(blockCounts(append([]float64{math.NaN()}, counts...), 10), 600)
	if math.Abs(w.Burstiness.Shape-exact.Shape) > 1e-9 || math.Abs(w.Burstiness.Shape-0.5) > 0.15 || w.Burstiness.Intervals != 142 ||
		!strings.Contains(w.Burstiness.Note, "counted in 10m0s intervals, 30× the mean request duration (20.0s)") {
		t.Errorf("burstiness %+v; the exact counts in 10-minute blocks fit %.4f, the generator's shape is 0.5", w.Burstiness, exact.Shape)
	}
	if w.PrefixCacheHitRate == nil || math.Abs(*w.PrefixCacheHitRate-0.25) > 1e-6 {
		t.Errorf("prefix-cache hit rate %v, want 0.25", w.PrefixCacheHitRate)
	} else if p, _ := PrefixForHitRate(0.25, &w.Input); w.PrefixTokens != p || p < 318 || p > 340 {
		t.Errorf("prefix %d tokens (PrefixForHitRate %d)", w.PrefixTokens, p)
	}
	if strings.Join(w.Origin.Targets, ",") != "a" || w.Origin.HistorySec != 24*3600 || len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "lengthens them") {
		t.Errorf("origin %+v notes %q", w.Origin, w.Notes)
	}
	t.Logf("derived: rate %.3f, %s, prefix %d", w.RequestRate, w.Burstiness.Describe(), w.PrefixTokens)

	// A selector matching nothing, and a window too short for the fit.
	if _, err := DeriveWorkload(context.Background(), q, DeriveOptions{Selector: `{target="nope"}`, Window: 24 * time.Hour, End: end}); err == nil ||
		!strings.Contains(err.Error(), "no series") || !strings.Contains(err.Error(), `{target=\"nope\"}`) {
		t.Errorf("no matching series: %v", err)
	}
	w, err = DeriveWorkload(context.Background(), q, DeriveOptions{Selector: "{}", Window: 20 * time.Minute, End: end})
	if err != nil {
		t.Fatal(err)
	}
	if w.Burstiness.Shape != 0 || !strings.Contains(w.Burstiness.Note, "intervals") {
		t.Errorf("20 minutes: %+v, want no fit", w.Burstiness)
	}
	if _, err := DeriveWorkload(context.Background(), q, DeriveOptions{Selector: "{}", Window: time.Hour, End: tr.Start.Add(-time.Hour)}); !errors.Is(err, ErrNoTraffic) && (err == nil || !strings.Contains(err.Error(), "no series")) {
		t.Errorf("a window before the traffic: %v", err)
	}
}

// Scraped every 2 minutes, the counter read at 1-minute steps alternates
// 0 and a 2-minute count: the fit counts 2-minute blocks instead and
// still finds the generator's shape (719 blocks: relative error about
// 6.5 %, tolerance 20 %).
func TestDeriveWorkloadSlowScrape(t *testing.T) {
	tr, counts := servedDay(time.Now(), 2*time.Minute)
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	c, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := DeriveWorkload(context.Background(), v1.NewAPI(c), DeriveOptions{Window: 24 * time.Hour, End: tr.Start.Add(tr.Duration)})
	if err != nil {
		t.Fatal(err)
	}
	f := w.Burstiness
	if f.IntervalSeconds != 120 || math.Abs(f.Shape-0.5) > 0.1 {
		t.Errorf("fit %+v, want 2-minute intervals and shape 0.5 within 20%%", f)
	}
	var total float64
	for _, n := range counts {
		total += n
	}
	if want := total / (24 * 3600); math.Abs(w.RequestRate-want) > 1e-9*want {
		t.Errorf("rate %g, want %g", w.RequestRate, want)
	}
	if got := blockCounts([]float64{1, 2, 3, 4, 5}, 2); len(got) != 2 || got[0] != 3 || got[1] != 7 {
		t.Errorf("blockCounts: %v", got)
	}
	if got := blockCounts([]float64{1, math.NaN(), 3, 4}, 2); !math.IsNaN(got[0]) || got[1] != 7 {
		t.Errorf("a block with a gap is a gap: %v", got)
	}
	t.Logf("2m scrapes: %s", f.Describe())
}
