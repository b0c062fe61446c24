package collector

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// hugeExposition writes n series of one unmapped family: 1,000,000 of
// them are about 13 MB, under MaxBodyBytes.
func hugeExposition(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# HELP j Noise.\n# TYPE j gauge\n")
	for i := range n {
		fmt.Fprintf(&b, "j{i=\"%x\"} 1\n", i)
	}
	return b.Bytes()
}

// A target's unmapped families, however many, are never parsed: before
// the filter a million-series body made the text parser build a million
// objects (hundreds of MiB) for a scrape that kept one gauge.
func TestUnmappedSeriesNotParsed(t *testing.T) {
	body := append(hugeExposition(1_000_000), goodBody...)
	if len(body) > MaxBodyBytes {
		t.Fatalf("test body is %d bytes, over the cap", len(body))
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) })
	m, reg := newTestManager(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m.Apply([]*config.Target{target("big", srv.URL)})
	waitScrapes(t, m, "big", 1)
	runtime.ReadMemStats(&after)
	s := series(t, reg, "llm_prober_server_requests_running", map[string]string{"target": "big"})
	if len(s) != 1 || s[0].GetGauge().GetValue() != 3 {
		t.Fatalf("requests_running = %v, want 3", s)
	}
	// The body (13 MB) is streamed through the filter, never held whole:
	// the scrape allocates about 200 KiB. The old one allocated over 500
	// MiB here (the body, then the parser's objects).
	t.Logf("scrape allocated %d KiB", (after.TotalAlloc-before.TotalAlloc)>>10)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("scrape allocated %d MiB", alloc>>20)
	}
}

// More samples of mapped families than MaxParsedSeries fail the scrape
// with a reason of its own, before anything is parsed.
func TestTooManySeries(t *testing.T) {
	var b strings.Builder
	b.WriteString("# TYPE vllm:num_requests_running gauge\n")
	for i := range MaxParsedSeries + 1 {
		fmt.Fprintf(&b, "vllm:num_requests_running{model_name=\"m\",engine=\"%d\"} 1\n", i)
	}
	body := b.String()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("many", srv.URL)})
	waitScrapes(t, m, "many", 1)
	if got := failures(t, reg, "many", reasonTooManySeries); got != 1 {
		t.Errorf("failures{reason=%q} = %v, want 1", reasonTooManySeries, got)
	}
	if s := series(t, reg, "llm_prober_server_requests_running", nil); len(s) != 0 {
		t.Errorf("data exported from a refused scrape: %v", s)
	}
}

// Passthrough families are parsed too; a line the filter cannot read is
// left to the parser, so a page that is not the format still fails.
func TestFilterKeepsWantedAndUnknown(t *testing.T) {
	re, err := anchor("http.*")
	if err != nil {
		t.Fatal(err)
	}
	f := newFamilyFilter(nil, []*regexp.Regexp{re})
	in := "# HELP http_requests_total x\n# TYPE http_requests_total counter\n" +
		"http_requests_total{code=\"200\"} 1\n# TYPE other gauge\nother 1\n" +
		"{\"http.server.duration\",a=\"b\"} 2\n{\"other.thing\"} 3\n<html>\n# a comment\n\n"
	out, over := f.filter([]byte(in), 10)
	want := "# HELP http_requests_total x\n# TYPE http_requests_total counter\n" +
		"http_requests_total{code=\"200\"} 1\n{\"http.server.duration\",a=\"b\"} 2\n<html>\n"
	if over || string(out) != want {
		t.Errorf("filter = %q, %v\nwant %q", out, over, want)
	}
	if _, over := f.filter([]byte(in), 1); !over {
		t.Error("2 wanted samples passed a limit of 1")
	}
}

// Histograms no client could have written are dropped, counted, and
// never re-exported: before, a NaN sum or falling buckets went out as ours.
func TestBadHistogramsDropped(t *testing.T) {
	const h = "vllm:time_to_first_token_seconds"
	hist := func(model, sum string, b1, b2, count int) string {
		return fmt.Sprintf("%[1]s_bucket{model_name=%[2]q,le=\"1\"} %[4]d\n%[1]s_bucket{model_name=%[2]q,le=\"+Inf\"} %[5]d\n"+
			"%[1]s_sum{model_name=%[2]q} %[3]s\n%[1]s_count{model_name=%[2]q} %[6]d\n", h, model, sum, b1, b2, count)
	}
	body := "# TYPE " + h + " histogram\n" +
		hist("ok", "1.5", 1, 2, 2) +
		hist("nan", "NaN", 1, 2, 2) +
		hist("inf", "+Inf", 1, 2, 2) +
		hist("falling", "1", 3, 2, 2) +
		hist("over", "1", 1, 2, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{target("h", srv.URL)})
	waitScrapes(t, m, "h", 1)
	s := series(t, reg, "llm_prober_server_time_to_first_token_seconds", nil)
	if len(s) != 1 || s[0].GetHistogram().GetSampleSum() != 1.5 {
		t.Errorf("re-exported histograms = %v, want only the valid one", s)
	}
	d := series(t, reg, "llm_prober_server_metrics_dropped_series_total", map[string]string{"reason": "invalid_histogram"})
	if len(d) != 1 || d[0].GetCounter().GetValue() != 4 {
		t.Errorf("dropped{reason=invalid_histogram} = %v, want 4", d)
	}
}

// BenchmarkParseHugeExposition is the case: a 13 MB exposition of
// a million series, of which the mapping wants one, filtered as fetch
// streams it and parsed. Its B/op is what one scrape of it allocates.
func BenchmarkParseHugeExposition(b *testing.B) {
	body := append(hugeExposition(1_000_000), goodBody...)
	f := newFamilyFilter([]*Mapping{registry[backend.VLLM]}, nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		kept, over, err := f.filterReader(bytes.NewReader(body), MaxParsedSeries)
		if err != nil || over {
			b.Fatal(err, over)
		}
		fams, _, _, serr := parse(kept)
		if serr != nil || len(fams) != 1 {
			b.Fatal(serr, len(fams))
		}
	}
}

// Lines longer than the read buffer and a last line without a newline are
// kept whole.
func TestFilterReaderLongLines(t *testing.T) {
	f := newFamilyFilter([]*Mapping{registry[backend.VLLM]}, nil)
	long := "vllm:num_requests_running{model_name=\"" + strings.Repeat("m", 200<<10) + "\"} 1\n"
	in := "# TYPE vllm:num_requests_running gauge\n" + long + "junk{x=\"" + strings.Repeat("y", 100<<10) + "\"} 1\nvllm:num_requests_waiting 2"
	out, over, err := f.filterReader(strings.NewReader(in), 10)
	want := "# TYPE vllm:num_requests_running gauge\n" + long + "vllm:num_requests_waiting 2"
	if err != nil || over || string(out) != want {
		t.Errorf("filterReader: %d bytes, %v, %v; want %d bytes", len(out), over, err, len(want))
	}
}
