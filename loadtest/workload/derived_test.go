package workload

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testDerived() *DerivedWorkload {
	h := 0.3
	return &DerivedWorkload{Version: 1, RequestRate: 2.5,
		Origin:             WorkloadOrigin{Source: "prometheus", URL: "http://prom:9090", Selector: `{target="a"}`, Window: "1d", Requests: 1000, HistorySec: 86400, Targets: []string{"a"}},
		Burstiness:         BurstFit{Shape: 0.7, Intervals: 1439, IntervalSeconds: 60, MeanPerInterval: 150, Dispersion: 1 / 0.7},
		PrefixCacheHitRate: &h, PrefixTokens: 300,
		Input:  LengthDist{Buckets: []LengthBucket{{Lo: 900, Hi: 1100, Requests: 1000}}, Requests: 1000, Mean: 1000},
		Output: LengthDist{Buckets: []LengthBucket{{Lo: 0, Hi: 10, Requests: 250}, {Lo: 100, Hi: 200, Requests: 750}}, Requests: 1000, Mean: 113.75},
	}
}

// The shared prefix gives the hit rate: P = h · mean L where no prompt is
// shorter than P; else the prompts shorter are lengthened to P+1 and P
// is fitted to the lengthened mean, and the note says so.
func TestPrefixForHitRate(t *testing.T) {
	narrow := &LengthDist{Buckets: []LengthBucket{{Lo: 900, Hi: 1100, Requests: 100}}, Requests: 100, Mean: 1000}
	if p, note := PrefixForHitRate(0.3, narrow); p != 300 || note != "" {
		t.Errorf("30%% of 1,000 tokens: %d %q, want 300", p, note)
	}
	for _, h := range []float64{0, -1, math.NaN()} {
		if p, _ := PrefixForHitRate(h, narrow); p != 0 {
			t.Errorf("hit rate %g: prefix %d, want 0", h, p)
		}
	}
	hitRate := func(p int, d *LengthDist) float64 { return float64(p) / d.meanAtLeast(float64(p)+1) }
	p, note := PrefixForHitRate(1, narrow)
	if got := hitRate(p, narrow); math.Abs(got-0.95) > 0.001 || !strings.Contains(note, "fitted as 95%") || !strings.Contains(note, "lengthens them") {
		t.Errorf("hit rate 1: prefix %d gives %.4f, note %q; want 0.95", p, got, note)
	}
	// 20 % of 100 tokens, 50 % of 700, 30 % above 2,048 (as the
	// backfilled day): a 25 % hit rate needs a prefix longer than the
	// short prompts.
	d, _ := NewLengthDist([]HistSeries{{Bounds: []float64{128, 256, 512, 1024, 2048, inf()}, Counts: []float64{20, 20, 20, 70, 70, 100}, Sum: 127000}})
	p, note = PrefixForHitRate(0.25, d)
	if got := hitRate(p, d); math.Abs(got-0.25) > 0.001 || !strings.Contains(note, "20.0% of the served prompts are shorter") {
		t.Errorf("25%% of a 1,270 mean: prefix %d gives %.4f, note %q", p, got, note)
	}
	t.Logf("25%%: %d tokens; %s", p, note)
}

// A saved workload reads back the same, and says where it came from.
func TestDerivedWorkloadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.json")
	w := testDerived()
	if err := w.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadDerivedWorkload(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Origin.File != path || got.Burstiness.Shape != 0.7 || *got.PrefixCacheHitRate != 0.3 || got.Output.Mean != 113.75 || len(got.Output.Buckets) != 2 {
		t.Errorf("read back %+v", got)
	}
	var out bytes.Buffer
	got.WriteText(&out)
	for _, want := range []string{"file " + path, "selector {target=\"a\"}, window 1d", "1000 finished in the window, mean rate 2.500 req/s",
		"input tokens: 1000 requests, mean 1000, p50 1000", "gamma shape 0.70", "30.0% of prompt tokens hit → 300-token shared prefix", "24h0m0s of history"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// Bad files are refused with the file and the field named.
func TestLoadDerivedWorkloadBad(t *testing.T) {
	dir := t.TempDir()
	bad := func(mut func(w *DerivedWorkload)) string {
		w := testDerived()
		mut(w)
		p := filepath.Join(dir, "w.json")
		if err := w.Save(p); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		return string(b)
	}
	two := 2.0
	for _, c := range []struct{ body, want string }{
		{"", "not a workload file"},
		{"[1,2]", "not a workload file"},
		{`{"version":1,"surprise":true}`, `unknown field "surprise"`},
		{bad(func(w *DerivedWorkload) { w.Version = 2 }), "version 2"},
		{strings.Replace(bad(func(*DerivedWorkload) {}), `"request_rate": 2.5`, `"request_rate": -1`, 1), "request_rate -1"},
		{bad(func(w *DerivedWorkload) { w.Burstiness.Shape = -2 }), "burstiness.shape -2"},
		{bad(func(w *DerivedWorkload) { w.PrefixCacheHitRate = &two }), "prefix_cache_hit_rate 2"},
		{bad(func(w *DerivedWorkload) { w.Input.Buckets[0].Hi = 1 }), "input_tokens: bucket 0: lo 900, hi 1"},
		{bad(func(w *DerivedWorkload) { w.Output.Buckets = nil }), "output_tokens: no buckets"},
		{bad(func(w *DerivedWorkload) { w.PrefixTokens = -5 }), "prefix_tokens -5"},
		{strings.Repeat(" ", maxWorkloadFile+1), "over the size cap"},
	} {
		p := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDerivedWorkload(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%.40q: %v, want %q and the path", c.body, err, c.want)
		}
	}
	if _, err := LoadDerivedWorkload(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file loaded")
	}
}

// The synthetic workload of a derived one draws its lengths from the
// served distributions, the prefix included in the prompt, clipped to a
// context limit; reseeding keeps the distributions.
func TestSyntheticFromDerived(t *testing.T) {
	w := testDerived()
	s := NewSyntheticFrom(w, 300, 1, nil)
	const n = 4000
	short := 0
	for i := range n {
		it := s.Item(i)
		if it.PromptTokens < 901 || it.PromptTokens > 1100 {
			t.Fatalf("item %d: prompt %d tokens outside (900, 1100]", i, it.PromptTokens)
		}
		if !strings.HasPrefix(it.Prompt, s.Prefix) || len(strings.Fields(it.Prompt)) != it.PromptTokens {
			t.Fatalf("item %d: prompt of %d words, planned %d", i, len(strings.Fields(it.Prompt)), it.PromptTokens)
		}
		switch o := it.OutputTokens; {
		case o >= 1 && o <= 10:
			short++
		case o < 101 || o > 200:
			t.Fatalf("item %d: output %d outside the buckets", i, o)
		}
	}
	if share := float64(short) / n; math.Abs(share-0.25) > 0.03 {
		t.Errorf("%.3f short outputs, want 0.25", share)
	}
	if !strings.Contains(s.Describe(), "served workload") || s.MaxPromptTokens() != 1100 || s.MaxOutputTokens() != 200 {
		t.Errorf("describe %q, max %d/%d", s.Describe(), s.MaxPromptTokens(), s.MaxOutputTokens())
	}
	r := Reseed(s, 9).(*Synthetic)
	if r.inDist == nil || r.Item(0) == s.Item(0) {
		t.Error("reseeding lost the distributions or kept the prompts")
	}
	s.LimitContext(1000)
	for i := range 500 {
		if it := s.Item(i); it.PromptTokens+it.OutputTokens > 1000 || it.PromptTokens <= 300 {
			t.Fatalf("item %d: %d + %d tokens over a 1,000-token limit", i, it.PromptTokens, it.OutputTokens)
		}
	}
}
