// Command scale runs the real llm-prober binary against N targets and
// reports what it costs: CPU, peak RSS, /metrics size and render time, and
// how late probes start after their scheduled slot
// (llm_prober_schedule_delay_seconds).
//
// The targets point at a trivial, fast SSE server in this process (spread
// over a few listeners on 127.0.0.1), so the prober process measured is
// the prober alone. With -server-metrics, every target also has
// server_metrics enabled and serves a real vLLM /metrics, and the run
// reports how the scrapes were spread and how many ran at once.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

var (
	saveMetrics *string
	scrapes     *scrapeLog // nil unless -server-metrics
)

func main() {
	var (
		binary   = flag.String("binary", "./llm-prober", "llm-prober binary to run")
		sizes    = flag.String("targets", "100,1000,10000", "comma-separated numbers of targets")
		interval = flag.Duration("interval", time.Minute, "probe interval of every target")
		duration = flag.Duration("duration", 0, "how long to run each size (default 2 x interval)")
		tokens   = flag.Int("tokens", 16, "tokens per streamed answer")
		servers  = flag.Int("servers", 0, "SSE listeners the targets are spread over (default: one per target, as in a fleet)")
	)
	saveMetrics = flag.String("save-metrics", "", "save each size's /metrics text as PREFIX.N.prom")
	var (
		serverMetrics = flag.Bool("server-metrics", false, "enable server_metrics on every target (scraped at the probe interval)")
		metricsFile   = flag.String("metrics-file", "../collector/testdata/vllm-v1-assembled.prom", "exposition each target serves on /metrics")
		metricsDelay  = flag.Duration("metrics-delay", 20*time.Millisecond, "time a target takes to answer /metrics")
	)
	flag.Parse()
	if *serverMetrics {
		var err error
		if scrapes, err = newScrapeLog(*metricsFile, *metricsDelay); err != nil {
			fatal(err)
		}
	}
	if *duration == 0 {
		*duration = 2 * *interval
	}
	if *servers == 0 {
		for f := range strings.SplitSeq(*sizes, ",") {
			n, _ := strconv.Atoi(strings.TrimSpace(f))
			*servers = max(*servers, n)
		}
	}
	// Each listener on its own loopback address, so that every target is
	// its own host to the prober's connection pools.
	var urls []string
	for i := range *servers {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.%d.%d.%d:0", 1+i/62500, i/250%250, i%250+1))
		if err != nil {
			fatal(err)
		}
		h := sseHandler(*tokens)
		if scrapes != nil {
			mux := http.NewServeMux()
			mux.Handle("/", h)
			mux.Handle("/metrics", scrapes.handler(i))
			h = mux
		}
		go func() { _ = http.Serve(ln, h) }()
		urls = append(urls, "http://"+ln.Addr().String())
	}
	fmt.Printf("# scale interval=%v duration=%v tokens=%d server-metrics=%v load=%s\n", *interval, *duration, *tokens, *serverMetrics, harness.LoadAvg())
	// Per target: RSS, Go heap in use and goroutine stacks (KB), goroutines.
	// /metrics: OpenMetrics size, plain/gzip; render: gzip OpenMetrics,
	// then gzip protobuf size and render.
	fmt.Printf("%8s %8s %6s %10s %11s %11s %17s %4s %13s %8s %6s %8s %26s %10s\n", "targets", "probes", "failed",
		"CPU cores", "CPU/probe", "RSS run/max", "RSS/heap/stack", "g/t", "/metrics", "render", "proto", "render",
		"delay p50/p99/max-bucket", "≤10ms")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fatal(err)
		}
		if err := runSize(*binary, n, urls, *interval, *duration, *tokens); err != nil {
			fatal(err)
		}
	}
}

// sseHandler answers every request with a short vLLM-style chat stream
// with continuous usage, flushing each chunk.
func sseHandler(tokens int) http.Handler {
	var events [][]byte
	chunk := func(delta string, finish string, completion int) []byte {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` +
			delta + `,"logprobs":null,"finish_reason":` + f + `}],"usage":{"prompt_tokens":8,"total_tokens":` +
			strconv.Itoa(8+completion) + `,"completion_tokens":` + strconv.Itoa(completion) + "}}\n\n")
	}
	events = append(events, chunk(`{"role":"assistant","content":""}`, "", 0))
	for i := 1; i <= tokens; i++ {
		fin := ""
		if i == tokens {
			fin = "length"
		}
		events = append(events, chunk(`{"content":"tok`+strconv.Itoa(i)+` "}`, fin, i))
	}
	events = append(events, []byte("data: [DONE]\n\n"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		fl.Flush()
		for _, e := range events {
			if _, err := w.Write(e); err != nil {
				return
			}
			fl.Flush()
		}
	})
}

func writeConfig(file string, n int, urls []string, interval time.Duration, tokens int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "global:\n  interval: %s\n  timeout: %s\n  max_concurrent_probes: 64\n",
		model.Duration(interval), model.Duration(min(10*time.Second, interval/2)))
	fmt.Fprintf(&b, "modules:\n  chat:\n    api: chat\n    messages: [{role: user, content: hi}]\n    max_tokens: %d\n    ignore_eos: true\n", tokens)
	b.WriteString("targets:\n")
	for i := range n {
		sm := ""
		if scrapes != nil {
			sm = ", server_metrics: {enabled: true}"
		}
		fmt.Fprintf(&b, "  - {name: t%05d, url: %q, model: m, modules: [chat]%s}\n", i, urls[i%len(urls)], sm)
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}

// runSize measures one number of targets. CPU is averaged from ready to
// the end of the run; "RSS run" is the peak while probing, "max" the peak
// including the /metrics renders.
func runSize(binary string, n int, urls []string, interval, duration time.Duration, tokens int) error {
	dir, err := os.MkdirTemp("", "llm-prober-scale")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "config.yml")
	if err := writeConfig(cfg, n, urls, interval, tokens); err != nil {
		return err
	}
	started := time.Now()
	if scrapes != nil {
		scrapes.reset(started)
	}
	p, base, err := harness.StartProber(binary, cfg)
	if err != nil {
		return err
	}
	defer p.Kill()
	pid := p.Pid()
	cpu0, t0 := harness.ProcCPU(pid), time.Now()
	var peak int64
	for time.Since(t0) < duration {
		time.Sleep(time.Second)
		peak = max(peak, harness.RSS(pid))
	}
	cpuAll := harness.ProcCPU(pid)
	cpu := cpuAll - cpu0
	wall := time.Since(t0)
	// Since start too: scrapes that all fire at start fall before ready.
	cpuSinceStart := cpuAll.Seconds() / time.Since(started).Seconds()

	steady := peak
	// The delay histogram first: a render of /metrics at 10,000 targets
	// takes both cores for seconds and delays the probes due meanwhile.
	_, text, err := fetch(base+"/metrics", "text/plain;version=0.0.4", "")
	if err != nil {
		return err
	}
	if *saveMetrics != "" {
		_ = os.WriteFile(fmt.Sprintf("%s.%d.prom", *saveMetrics, n), text, 0o644)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return err
	}
	// Render time as Prometheus scrapes it: gzip, OpenMetrics (for
	// exemplars) or protobuf (for native histograms). The compressed body
	// is timed, not its decompression, which is the scraper's work.
	render := func(accept string) (time.Duration, int, int, error) {
		var ds []time.Duration
		var gz, plain int
		for range 3 {
			d, b, err := fetch(base+"/metrics", accept, "gzip")
			if err != nil {
				return 0, 0, 0, err
			}
			ds, gz = append(ds, d), len(b)
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return 0, 0, 0, err
			}
			n, err := io.Copy(io.Discard, zr)
			if err != nil {
				return 0, 0, 0, err
			}
			plain = int(n)
			peak = max(peak, harness.RSS(pid))
		}
		slices.Sort(ds)
		return ds[1], gz, plain, nil
	}
	omTime, omGz, size, err := render("application/openmetrics-text;version=1.0.0;escaping=underscores,text/plain;version=0.0.4;q=0.5")
	if err != nil {
		return err
	}
	pbTime, pbGz, _, err := render("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;escaping=underscores,application/openmetrics-text;version=1.0.0;q=0.5")
	if err != nil {
		return err
	}
	probes := sum(fams["llm_prober_probes_total"])
	failed := sum(fams["llm_prober_probe_failures_total"])
	var p50, p99, top, within string
	if mf := fams["llm_prober_schedule_delay_seconds"]; mf != nil && len(mf.GetMetric()) == 1 {
		h := mf.GetMetric()[0].GetHistogram()
		p50, p99 = harness.MS(harness.Quantile(h, 0.5)), harness.MS(harness.Quantile(h, 0.99))
		top, within = maxBucket(h), harness.Fraction(h, 0.01)
	}
	fmt.Printf("%8d %8.0f %6.0f %10.3f %9.2fms %6.0f/%4.0fMB %6.0f/%3.0f/%3.0fKB %4.1f %8.1f/%4.1fMB %6.0fms %4.1fMB %6.0fms %26s %10s\n", n, probes, failed,
		cpu.Seconds()/wall.Seconds(), cpu.Seconds()*1000/max(probes, 1), float64(steady)/(1<<20), float64(peak)/(1<<20),
		float64(steady)/float64(n)/1024, single(fams["go_memstats_heap_inuse_bytes"])/float64(n)/1024,
		single(fams["go_memstats_stack_inuse_bytes"])/float64(n)/1024, single(fams["go_goroutines"])/float64(n),
		float64(size)/1e6, float64(omGz)/1e6, float64(omTime.Milliseconds()), float64(pbGz)/1e6, float64(pbTime.Milliseconds()),
		p50+"/"+p99+"/"+top, within)
	if scrapes != nil {
		scrapes.report(n, interval, cpuSinceStart)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	return nil
}

func sum(mf *dto.MetricFamily) float64 {
	t := 0.0
	for _, m := range mf.GetMetric() {
		t += m.GetCounter().GetValue()
	}
	return t
}

// maxBucket is the upper bound of the highest non-empty bucket.
func maxBucket(h *dto.Histogram) string {
	prev := uint64(0)
	top := "0"
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() > prev {
			top = "≤" + harness.MS(b.GetUpperBound())
		}
		prev = b.GetCumulativeCount()
	}
	if h.GetSampleCount() > prev {
		top = ">10s"
	}
	return top
}

// fetch GETs url. An explicit encoding ("gzip") leaves the body as sent:
// the Go client only undoes the compression it asked for itself.
func single(mf *dto.MetricFamily) float64 {
	if mf == nil || len(mf.GetMetric()) != 1 {
		return 0
	}
	m := mf.GetMetric()[0]
	return m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetUntyped().GetValue()
}

func fetch(url, accept, encoding string) (time.Duration, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", accept)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return time.Since(start), b, err
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
