package loadtest

import (
	"encoding/xml"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// numpy.percentile's default method, checked on numpy's own outputs.
func TestQuantileMatchesNumpy(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{50, 2.5}, {90, 3.7}, {99, 3.97}, {0, 1}, {100, 4}} {
		if got := quantileSorted(x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p%g = %g, want %g", c.p, got, c.want)
		}
	}
	s := exactStats([]float64{3, 1, 2}, []float64{50})
	if s.Mean != 2 || s.Median != 2 || math.Abs(s.Std-math.Sqrt(2.0/3)) > 1e-12 {
		t.Errorf("stats %+v: want mean 2, median 2, population std √(2/3)", s)
	}
}

// The histogram's quantiles stay within HistRelError of the exact ones.
func TestHistRelativeError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Hist
	var exact []float64
	for range 200000 {
		ns := int64(math.Exp(rng.NormFloat64()*1.5 + 16)) // ~9 ms, wide spread
		h.Add(ns)
		exact = append(exact, float64(ns)/1e6)
	}
	slices.Sort(exact)
	ps := []float64{1, 10, 50, 90, 99, 99.9, 99.99}
	st := h.Stats(ps)
	for _, p := range st.Percentiles {
		want := quantileSorted(exact, p.P)
		if rel := math.Abs(p.Value-want) / want; rel > HistRelError {
			t.Errorf("p%g = %g, exact %g: relative error %.2e over %.2e", p.P, p.Value, want, rel, HistRelError)
		}
	}
	mean, std := meanStd(exact)
	if math.Abs(st.Mean-mean)/mean > 1e-9 || math.Abs(st.Std-std)/std > 1e-6 {
		t.Errorf("mean/std %g/%g, exact %g/%g", st.Mean, st.Std, mean, std)
	}
	for _, v := range []int64{0, 1, 1023, 1024, 1025, 2047, 2048, 1 << 40} {
		if mid := bucketMid(bucketOf(v)); math.Abs(mid-float64(v)) > float64(v)*HistRelError+0.5 {
			t.Errorf("value %d lands in a bucket centred at %g", v, mid)
		}
	}
}

// Gamma gaps have mean 1/rate and coefficient of variation 1/√shape.
func TestArrivalsGammaMoments(t *testing.T) {
	for _, shape := range []float64{1, 0.5, 4} {
		a := newArrivals(100, shape, 7)
		const n = 40000
		gaps := make([]float64, n)
		prev := a.next()
		for i := range gaps {
			t := a.next()
			gaps[i] = (t - prev).Seconds()
			prev = t
		}
		mean, std := meanStd(gaps)
		cv := std / mean
		if math.Abs(mean-0.01)/0.01 > 0.03 {
			t.Errorf("shape %g: mean gap %g s, want 0.01", shape, mean)
		}
		if want := 1 / math.Sqrt(shape); math.Abs(cv-want)/want > 0.05 {
			t.Errorf("shape %g: CV %g, want %g", shape, cv, want)
		}
	}
	inf := newArrivals(math.Inf(1), 1, 1)
	for range 3 {
		if inf.next() != 0 {
			t.Fatal("an infinite rate must send everything at once")
		}
	}
}

func TestParseSLOAndConditions(t *testing.T) {
	s, err := ParseSLO("ttft:500 tpot:50,e2el:3000")
	if err != nil || s.TTFT != 500*time.Millisecond || s.TPOT != 50*time.Millisecond || s.E2EL != 3*time.Second {
		t.Fatalf("ParseSLO = %+v, %v", s, err)
	}
	if s.String() != "ttft:500 tpot:50 e2el:3000" {
		t.Errorf("String() = %q", s.String())
	}
	for _, bad := range []string{"ttft", "ttft:x", "itl:5", "ttft:-1"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
	rep := &Report{Completed: 99, Failed: 1, GoodputPercent: 97.5, FailedBy: nil,
		TTFT: Stats{Percentiles: []Percentile{{P: 99, Value: 620}}}}
	for src, want := range map[string]bool{
		"goodput<99": true, "goodput<90": false, "p99_ttft>500": true, "p99_ttft_ms>700": false,
		"failed>0": true, "any-failure": true, "request_throughput>=0": true,
	} {
		c, err := ParseCondition(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, _, err := c.Check(rep); err != nil || got != want {
			t.Errorf("%s: holds = %v, %v; want %v", src, got, err, want)
		}
	}
	c, _ := ParseCondition("p42_nothing>1")
	if _, _, err := c.Check(rep); err == nil {
		t.Error("an unknown key must be an error")
	}
	for _, bad := range []string{"goodput", "goodput<x", "<5"} {
		if _, err := ParseCondition(bad); err == nil {
			t.Errorf("ParseCondition(%q) accepted", bad)
		}
	}
}

// The plan follows the formula exactly.
func TestCapacityPlan(t *testing.T) {
	p, err := NewPlan(4, 10_000_000, 0, 2, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	// 10M/86400 × 2 = 231.48 req/s; /4 → 58 replicas; ×2 → 116; ×8 GPUs.
	if math.Abs(p.RequiredRate-231.481) > 0.01 || p.BaseReplicas != 58 || p.Replicas != 116 || p.GPUs != 928 {
		t.Errorf("plan %+v", p)
	}
	var b strings.Builder
	p.WriteText(&b)
	for _, want := range []string{"10000000 / 86,400 = 115.741", "115.741 × 2 = 231.481", "ceil(ceil(231.481 / 4.000) × 2) = ceil(58 × 2) = 116", "116 × 8 = 928"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
	p, _ = NewPlan(10, 0, 25, 1, 1.5, 1)
	if p.BaseReplicas != 3 || p.Replicas != 5 {
		t.Errorf("peak 25 at 10/replica, ×1.5: %+v", p)
	}
	if _, err := NewPlan(0, 1, 0, 1, 2, 1); err == nil {
		t.Error("a zero knee must be refused")
	}
}

func TestReadJSONL(t *testing.T) {
	in := `{"prompt": "one two three", "output_tokens": 5}
{"prompt": "four five", "output_len": 7}

{"prompt": "six", "max_tokens": 9}
`
	d, err := readJSONL(t.Context(), strings.NewReader(in), "x.jsonl", DatasetOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Item{}
	for _, it := range d.Items {
		got[it.Prompt] = it
	}
	if got["one two three"].OutputTokens != 5 || got["four five"].OutputTokens != 7 || got["six"].OutputTokens != 9 ||
		got["one two three"].PromptTokens != 3 {
		t.Errorf("items %+v", d.Items)
	}
	if _, err := readJSONL(t.Context(), strings.NewReader(`{"prompt":"x"}`), "y", DatasetOptions{}); err == nil {
		t.Error("an entry without an output length must be refused")
	}
}

// The same seed gives the same prompts; lengths stay in the range.
func TestSyntheticDeterministic(t *testing.T) {
	a, b := NewSynthetic(100, 20, 16, 0.5, 3, nil), NewSynthetic(100, 20, 16, 0.5, 3, nil)
	for i := range 50 {
		x, y := a.Item(i), b.Item(i)
		if x != y {
			t.Fatalf("item %d differs between equal seeds", i)
		}
		words := len(strings.Fields(x.Prompt))
		if words != x.PromptTokens || x.PromptTokens < 16+50 || x.PromptTokens > 16+150 || x.OutputTokens < 10 || x.OutputTokens > 30 {
			t.Fatalf("item %d: %d words, %+v", i, words, x)
		}
		if !strings.HasPrefix(x.Prompt, strings.Join(strings.Fields(a.Item(0).Prompt)[:16], " ")) {
			t.Fatalf("item %d does not start with the shared prefix", i)
		}
	}
	if NewSynthetic(100, 20, 0, 0, 4, nil).Item(0) == a.Item(0) {
		t.Error("another seed gave the same prompt")
	}
}

// The curve is well-formed SVG with the knee, the SLO line and every run.
func TestCurveSVG(t *testing.T) {
	slo := SLO{TTFT: 200 * time.Millisecond, TPOT: 50 * time.Millisecond}
	mk := func(kind string, rate, tput, ttft, good float64) *Point {
		return &Point{Kind: kind, Rate: rate, Report: &Report{SLO: slo, Completed: 10, OutputThroughput: tput, RequestThroughput: tput / 10,
			GoodputPercent: good, TTFT: Stats{Percentiles: []Percentile{{P: 99, Value: ttft}}},
			TPOT: Stats{Percentiles: []Percentile{{P: 99, Value: ttft / 10}}}}}
	}
	knee := mk(PointRate, 7, 240, 70, 100)
	sw := &Sweep{KneeGoodput: 99, Knee: knee, Points: []*Point{
		mk(PointSync, 0, 80, 20, 100), mk(PointMax, math.Inf(1), 350, 10000, 8), mk(PointRate, 4, 150, 40, 100), knee, mk(PointRate, 9, 270, 360, 96)}}
	if f := sw.Frontier(); len(f) != 5 {
		t.Errorf("frontier of a monotone sweep has %d points, want all 5", len(f))
	}
	var b strings.Builder
	if err := sw.WriteSVG(&b, "model & <workload>"); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(b.String()))
	circles := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "circle" {
			circles++
		}
	}
	for _, want := range []string{"knee 24.00 req/s", "SLO 200 ms", "SLO 50 ms", "&amp; &lt;workload&gt;"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if circles != 10 {
		t.Errorf("%d dots, want 5 runs × 2 panels", circles)
	}
}

// ShareGPT: first human turn, reply length as output, vllm bench's filters.
func TestLoadShareGPT(t *testing.T) {
	long := strings.Repeat("w ", 1100)
	data := `[
 {"id": "a", "conversations": [{"from": "human", "value": "one two three four five"}, {"from": "gpt", "value": "a b c d e f"}]},
 {"id": "short", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "a b c d e"}]},
 {"id": "long", "conversations": [{"from": "human", "value": "` + long + `"}, {"from": "gpt", "value": "a b c d"}]},
 {"id": "single", "conversations": [{"from": "human", "value": "alone here now ok"}]}
]`
	path := t.TempDir() + "/sg.json"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := LoadShareGPT(t.Context(), path, DatasetOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Items) != 1 || d.Items[0].PromptTokens != 5 || d.Items[0].OutputTokens != 6 || d.Item(7) != d.Items[0] {
		t.Errorf("items %+v", d.Items)
	}
	d, _ = LoadShareGPT(t.Context(), path, DatasetOptions{OutputTokens: 9})
	if d.Items[0].OutputTokens != 9 {
		t.Errorf("--output-tokens did not override: %+v", d.Items[0])
	}
	if _, err := LoadShareGPT(t.Context(), t.TempDir()+"/none.json", DatasetOptions{}); err == nil {
		t.Error("a missing file must fail")
	}
}
