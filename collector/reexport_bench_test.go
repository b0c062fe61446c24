package collector

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// bigExposition builds a vLLM V1 exposition of about size bytes: the real
// single-engine capture in testdata, with every engine-labelled family
// repeated for engines 0..n-1 (a multi-engine data-parallel server).
func bigExposition(tb testing.TB, size int) []byte {
	tb.Helper()
	src, err := os.ReadFile("testdata/vllm-v1-assembled.prom")
	if err != nil {
		tb.Fatal(err)
	}
	// Split into family blocks: comment lines, then sample lines.
	type block struct{ head, samples []string }
	var blocks []*block
	for _, line := range strings.Split(strings.TrimSpace(string(src)), "\n") {
		if strings.HasPrefix(line, "#") {
			if len(blocks) == 0 || len(blocks[len(blocks)-1].samples) > 0 {
				blocks = append(blocks, &block{})
			}
			blocks[len(blocks)-1].head = append(blocks[len(blocks)-1].head, line)
			continue
		}
		if len(blocks) == 0 {
			blocks = append(blocks, &block{})
		}
		blocks[len(blocks)-1].samples = append(blocks[len(blocks)-1].samples, line)
	}
	engines := max(1, size/len(src))
	var b bytes.Buffer
	for _, bl := range blocks {
		for _, h := range bl.head {
			b.WriteString(h + "\n")
		}
		perEngine := false
		for _, s := range bl.samples {
			perEngine = perEngine || strings.Contains(s, `engine="0"`)
		}
		n := 1
		if perEngine {
			n = engines
		}
		for e := range n {
			for _, s := range bl.samples {
				b.WriteString(strings.Replace(s, `engine="0"`, fmt.Sprintf(`engine="%d"`, e), 1) + "\n")
			}
		}
	}
	return b.Bytes()
}

var (
	bigOnce sync.Once
	bigBody []byte
)

func oneMB(tb testing.TB) []byte {
	bigOnce.Do(func() { bigBody = bigExposition(tb, 1<<20) })
	return bigBody
}

// BenchmarkServerMetrics compares, on the same 1 MB exposition, a bare
// expfmt parse with what a scrape costs us: parse, checks, backend
// detection, normalisation, and building every re-exported metric
// (Collect). Target: reexport ≤ 1.2 × parse.
func BenchmarkServerMetrics(b *testing.B) {
	body := oneMB(b)
	b.ReportMetric(float64(len(body)), "body-bytes")
	b.Run("expfmt-parse", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			p := expfmt.NewTextParser(model.UTF8Validation)
			if _, err := p.TextToMetricFamilies(bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name        string
		passthrough []string
	}{
		{"reexport", nil},
		{"reexport+passthrough", []string{"vllm:.*"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			t := target("t", "http://127.0.0.1:1")
			for _, re := range c.passthrough {
				r, err := anchor(re)
				if err != nil {
					b.Fatal(err)
				}
				t.ServerMetrics.Passthrough = append(t.ServerMetrics.Passthrough, &config.Regexp{Regexp: r, Source: re})
			}
			s := newScraper(newSpec(t), nil, nil, nil, log.NewNopLogger())
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			series := 0
			for b.Loop() {
				snap, serr := s.process(body)
				if serr != nil {
					b.Fatal(serr.err)
				}
				snap.at = time.Now()
				s.data = snap
				series = drain(s)
			}
			b.ReportMetric(float64(series), "series")
		})
	}
}

// drain collects the scraper's metrics as a registry would.
func drain(s *scraper) int {
	ch := make(chan prometheus.Metric, 256)
	go func() {
		s.collect(ch, time.Now(), newPTGuard())
		close(ch)
	}()
	n := 0
	for range ch {
		n++
	}
	return n
}
