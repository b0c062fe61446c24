// Command fleet runs N sharded llm-prober replicas on one file_sd list of
// targets and checks what the fleet promises: every target probed exactly
// once per interval across the shards, each shard costing what a single
// process of its share costs, and a file_sd change of many targets applied
// quickly without moving the schedule of the others.
//
// Each target is its own loopback listener (127.x.y.z) that counts the
// requests it gets, so "probed once per interval" is counted at the
// servers, not taken from the probers' own metrics.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

func main() {
	var (
		binary   = flag.String("binary", "./llm-prober", "llm-prober binary to run")
		n        = flag.Int("targets", 10000, "targets in the file_sd list")
		shards   = flag.Int("shards", 4, "replicas (--shard.count)")
		interval = flag.Duration("interval", 30*time.Second, "probe interval of every target")
		change   = flag.Int("change", 1000, "targets replaced in the file_sd change")
		tokens   = flag.Int("tokens", 16, "tokens per streamed answer")
		single   = flag.Bool("single", true, "also run one process with one shard's share, for comparison")
	)
	flag.Parse()
	fmt.Printf("# fleet targets=%d shards=%d interval=%v change=%d load=%s\n", *n, *shards, *interval, *change, harness.LoadAvg())

	srv := newServers(*n+*change, *tokens)
	dir, err := os.MkdirTemp("", "llm-prober-fleet")
	check(err)
	defer os.RemoveAll(dir)
	sd := filepath.Join(dir, "sd.json")
	check(writeSD(sd, srv.addrs[:*n]))
	cfg := filepath.Join(dir, "llm-prober.yml")
	check(writeConfig(cfg, *interval, *tokens))

	var fleet []*replica
	for i := range *shards {
		fleet = append(fleet, start(*binary, cfg, "--shard.count="+strconv.Itoa(*shards), "--shard.index="+strconv.Itoa(i)))
	}
	defer func() {
		for _, r := range fleet {
			r.stop()
		}
	}()
	// Every shard has derived its share from the file.
	waitFor(time.Minute, func() bool { return total(fleet, "llm_prober_shard_targets") == float64(*n) })
	fmt.Printf("shard targets: %v\n", values(fleet, "llm_prober_shard_targets"))

	// One interval for every job's first (random-phase) slot, then count a
	// whole interval at the servers.
	time.Sleep(*interval + 2*time.Second)
	cpu0, base0 := cpus(fleet), delays(fleet)
	counts := srv.window(*interval)
	cpu, base1 := cpus(fleet), delays(fleet)
	fmt.Printf("window of one interval: %s\n", histogram(counts[:*n]))
	// The same window's schedule delay: the baseline the change is
	// compared with (on a shared machine, its load shows here).
	var baseline *dto.Histogram
	for i := range fleet {
		baseline = add(baseline, sub(base1[i], base0[i]))
	}
	fmt.Printf("fleet schedule delay, steady interval: p50 %s p99 %s, %s within 10 ms (%d probes), load %s\n",
		harness.MS(harness.Quantile(baseline, 0.5)), harness.MS(harness.Quantile(baseline, 0.99)), harness.Fraction(baseline, 0.01), baseline.GetSampleCount(), harness.LoadAvg())
	for i, r := range fleet {
		fmt.Printf("shard %d: CPU %.3f cores, RSS %.0f MB\n", i, (cpu[i]-cpu0[i]).Seconds()/interval.Seconds(), float64(harness.RSS(r.pid()))/(1<<20))
	}

	// The change: the first `change` targets leave, as many new ones come.
	before := delays(fleet)
	applied0 := values(fleet, "llm_prober_discovery_last_apply_timestamp_seconds")
	addrs := slices.Concat(srv.addrs[*change:*n], srv.addrs[*n:*n+*change])
	t0 := time.Now()
	check(writeSD(sd, addrs))
	waitFor(30*time.Second, func() bool {
		for i, v := range values(fleet, "llm_prober_discovery_last_apply_timestamp_seconds") {
			if v <= applied0[i] || v < float64(t0.UnixNano())/1e9 {
				return false
			}
		}
		return true
	})
	var e2e []string
	for _, v := range values(fleet, "llm_prober_discovery_last_apply_timestamp_seconds") {
		e2e = append(e2e, fmt.Sprintf("%.0fms", (v-float64(t0.UnixNano())/1e9)*1000))
	}
	var took []string
	for _, v := range values(fleet, "llm_prober_discovery_last_apply_duration_seconds") {
		took = append(took, fmt.Sprintf("%.1fms", v*1000))
	}
	fmt.Printf("change of %d: file written to applied, per shard: %v; apply alone: %v; shard targets now %v\n",
		*change, e2e, took, values(fleet, "llm_prober_shard_targets"))
	time.Sleep(time.Second)
	counts = srv.window(*interval)
	after := delays(fleet)
	fmt.Printf("next interval: kept targets %s; removed %s; added %s\n",
		histogram(counts[*change:*n]), histogram(counts[:*change]), histogram(counts[*n:]))
	var merged *dto.Histogram
	for i := range fleet {
		d := sub(after[i], before[i])
		fmt.Printf("shard %d schedule delay since the change: p50 %s p99 %s, %s within 10 ms (%d probes)\n",
			i, harness.MS(harness.Quantile(d, 0.5)), harness.MS(harness.Quantile(d, 0.99)), harness.Fraction(d, 0.01), d.GetSampleCount())
		merged = add(merged, d)
	}
	fmt.Printf("fleet schedule delay, interval after the change: p50 %s p99 %s, %s within 10 ms (%d probes), load %s\n",
		harness.MS(harness.Quantile(merged, 0.5)), harness.MS(harness.Quantile(merged, 0.99)), harness.Fraction(merged, 0.01), merged.GetSampleCount(), harness.LoadAvg())
	for _, r := range fleet {
		r.stop()
	}
	fleet = nil

	if *single {
		share := *n / *shards
		check(writeSD(sd, srv.addrs[:share]))
		r := start(*binary, cfg)
		defer r.stop()
		waitFor(time.Minute, func() bool { return total([]*replica{r}, "llm_prober_shard_targets") == float64(share) })
		time.Sleep(*interval + 2*time.Second)
		c0 := harness.ProcCPU(r.pid())
		srv.window(*interval)
		fmt.Printf("single process, %d targets: CPU %.3f cores, RSS %.0f MB\n", share,
			(harness.ProcCPU(r.pid())-c0).Seconds()/interval.Seconds(), float64(harness.RSS(r.pid()))/(1<<20))
	}
	fmt.Printf("# load at end %s\n", harness.LoadAvg())
}

// servers are the targets: one counting SSE listener each.
type servers struct {
	addrs  []string
	counts []atomic.Int64
}

func newServers(n, tokens int) *servers {
	s := &servers{counts: make([]atomic.Int64, n)}
	body := sse(tokens)
	for i := range n {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.%d.%d.%d:0", 1+i/62500, i/250%250, i%250+1))
		check(err)
		s.addrs = append(s.addrs, ln.Addr().String())
		go func() {
			_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				s.counts[i].Add(1)
				w.Header().Set("Content-Type", "text/event-stream")
				fl := w.(http.Flusher)
				for _, e := range body {
					_, _ = w.Write(e)
					fl.Flush()
				}
			}))
		}()
	}
	return s
}

// window returns how many requests each target got during d.
func (s *servers) window(d time.Duration) []int64 {
	before := make([]int64, len(s.counts))
	for i := range s.counts {
		before[i] = s.counts[i].Load()
	}
	time.Sleep(d)
	out := make([]int64, len(s.counts))
	for i := range s.counts {
		out[i] = s.counts[i].Load() - before[i]
	}
	return out
}

func sse(tokens int) [][]byte {
	chunk := func(delta, finish string, completion int) []byte {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return []byte(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta +
			`,"finish_reason":` + f + `}],"usage":{"prompt_tokens":8,"total_tokens":` + strconv.Itoa(8+completion) +
			`,"completion_tokens":` + strconv.Itoa(completion) + "}}\n\n")
	}
	out := [][]byte{chunk(`{"role":"assistant","content":""}`, "", 0)}
	for i := 1; i <= tokens; i++ {
		fin := ""
		if i == tokens {
			fin = "length"
		}
		out = append(out, chunk(`{"content":"t "}`, fin, i))
	}
	return append(out, []byte("data: [DONE]\n\n"))
}

// histogram summarises per-target counts: how many got 0, 1, 2... requests.
func histogram(counts []int64) string {
	by := map[int64]int{}
	for _, c := range counts {
		by[c]++
	}
	var keys []int64
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d targets × %d probes", by[k], k))
	}
	return strings.Join(parts, ", ")
}

func writeSD(path string, addrs []string) error {
	b, err := json.Marshal([]map[string]any{{"targets": addrs}})
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path) // atomically, as config management does
}

func writeConfig(path string, interval time.Duration, tokens int) error {
	return os.WriteFile(path, fmt.Appendf(nil, `global:
  interval: %s
  max_concurrent_probes: 64
modules:
  chat:
    messages: [{role: user, content: hi}]
    max_tokens: %d
    ignore_eos: true
target_discovery:
  - name: files
    file_sd_configs:
      - files: [sd.json]
    template:
      modules: [chat]
      model: m
`, model.Duration(interval), tokens), 0o644)
}

type replica struct {
	proc *e2ekit.Proc
	base string
}

func start(binary, cfg string, args ...string) *replica {
	p, base, err := harness.StartProber(binary, cfg, args...)
	check(err)
	return &replica{proc: p, base: base}
}

func (r *replica) pid() int { return r.proc.Pid() }

func (r *replica) stop() { _ = r.proc.Stop(time.Minute) }

// families fetches only the named families (the name[] filter).
func (r *replica) families(names ...string) map[string]*dto.MetricFamily {
	q := ""
	for _, n := range names {
		q += "&name[]=" + n
	}
	resp, err := http.Get(r.base + "/metrics?" + q[1:])
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	return fams
}

func values(fleet []*replica, name string) []float64 {
	var out []float64
	for _, r := range fleet {
		v := math.NaN()
		if mf := r.families(name)[name]; mf != nil && len(mf.GetMetric()) == 1 {
			v = mf.GetMetric()[0].GetGauge().GetValue()
		}
		out = append(out, v)
	}
	return out
}

func total(fleet []*replica, name string) float64 {
	t := 0.0
	for _, v := range values(fleet, name) {
		t += v
	}
	return t
}

func delays(fleet []*replica) []*dto.Histogram {
	const name = "llm_prober_schedule_delay_seconds"
	var out []*dto.Histogram
	for _, r := range fleet {
		mf := r.families(name)[name]
		if mf == nil || len(mf.GetMetric()) != 1 {
			check(fmt.Errorf("no %s", name))
		}
		out = append(out, mf.GetMetric()[0].GetHistogram())
	}
	return out
}

func cpus(fleet []*replica) []time.Duration {
	var out []time.Duration
	for _, r := range fleet {
		out = append(out, harness.ProcCPU(r.pid()))
	}
	return out
}

func waitFor(timeout time.Duration, cond func() bool) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	check(fmt.Errorf("condition not met within %v", timeout))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}
