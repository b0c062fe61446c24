// Command loadgen measures llm-prober bench's load generator (package loadtest)
// against the mock vLLM server in another process, and openai-go driven
// the same way: sustained open-loop request rate, streamed tokens per
// second, how late requests are sent against their schedule, how far
// TTFT and ITL readings are from the mock's true write times, CPU and
// peak RSS. docs/performance.md records its figures.
//
// The mock runs in a child process (this binary re-executed) and reports
// its write times on the wall clock (/trace), which both processes read
// from the same kernel clock.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"

	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

type opts struct {
	client      string
	rate        float64
	concurrency int
	n           int
	tokens      int
	perChunk    int
	ttft, itl   time.Duration
	fidelity    bool
	prompt      int
}

func main() {
	var o opts
	serveMock := flag.String("serve-mock", "", "internal: serve the mock on this address")
	flag.StringVar(&o.client, "client", "loadtest", "loadtest (llm-prober bench's engine) or openai (openai-go)")
	flag.Float64Var(&o.rate, "rate", 1000, "open-loop Poisson rate, req/s (0: closed loop with -concurrency)")
	flag.IntVar(&o.concurrency, "concurrency", 0, "closed loop: this many users")
	flag.IntVar(&o.n, "n", 10000, "requests")
	flag.IntVar(&o.tokens, "tokens", 16, "output tokens per request")
	flag.IntVar(&o.perChunk, "tokens-per-chunk", 1, "mock tokens per SSE chunk")
	flag.DurationVar(&o.ttft, "ttft", 20*time.Millisecond, "mock prefill time")
	flag.DurationVar(&o.itl, "itl", 10*time.Millisecond, "mock gap between chunks")
	flag.BoolVar(&o.fidelity, "fidelity", false, "compare TTFT and ITL with the mock's write times (keeps every reading)")
	flag.IntVar(&o.prompt, "prompt-tokens", 32, "prompt length")
	flag.Parse()
	if *serveMock != "" {
		serve(*serveMock, o)
		return
	}
	url, cmd, err := harness.StartMock("-ttft", o.ttft.String(), "-itl", o.itl.String(),
		"-tokens-per-chunk", strconv.Itoa(o.perChunk), "-n", strconv.Itoa(o.n))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	loadtest.TuneGC() // as llm-prober bench does; for both clients
	runtime.GC()
	cpu0, wall0 := harness.CPUTime(), time.Now()
	var res *result
	if o.client == "openai" {
		res = runOpenAI(o, url)
	} else {
		res = runLoadtest(o, url)
	}
	wall := time.Since(wall0)
	cpu := harness.CPUTime() - cpu0
	fmt.Printf("client=%s rate=%s conc=%d n=%d tokens=%d/chunk %d ttft=%v itl=%v load=%s\n", o.client, rateStr(o.rate), o.concurrency,
		o.n, o.tokens, o.perChunk, o.ttft, o.itl, harness.LoadAvg())
	fmt.Printf("  done %d ok, %d failed in %.2fs: %.0f req/s, %.0f tokens/s, peak in flight %d\n", res.ok, res.failed, res.dur.Seconds(),
		float64(res.ok)/res.dur.Seconds(), float64(res.tokens)/res.dur.Seconds(), res.peak)
	fmt.Printf("  send lag (actual − planned) p50/p99/max: %s\n", harness.Summary(res.lag, false))
	if o.fidelity {
		fmt.Printf("  TTFT error p50/p99/max |err|: %s (%d)\n", harness.Summary(res.ttftErr, true), len(res.ttftErr))
		fmt.Printf("  ITL  error p50/p99/max |err|: %s (%d)\n", harness.Summary(res.itlErr, true), len(res.itlErr))
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	mockCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("  CPU %.2f cores (this process, wall %.1fs; the mock %.2f cores), peak RSS %d MiB\n",
		cpu.Seconds()/wall.Seconds(), wall.Seconds(), mockCPU.Seconds()/wall.Seconds(), harness.PeakRSS()>>20)
}

type result struct {
	ok, failed, tokens, peak int
	dur                      time.Duration
	lag, ttftErr, itlErr     []time.Duration
}

// reading is what a client saw of one request, for the fidelity check.
type reading struct {
	id    string
	start time.Time
	ttft  time.Duration
	itl   []time.Duration
}

// benchKeepAlive is llm-prober bench's (cmd/llm-prober/bench).
const benchKeepAlive = 90 * time.Second

func runLoadtest(o opts, url string) *result {
	t := &config.Target{Name: "t", URL: url, Model: "mock-model"}
	// bench's own client (httpclient.NewLean's buffers) and keep-alive,
	// so that the figures are bench's.
	client, err := prober.NewLoadClient(t, benchKeepAlive)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	var reads []reading
	lo := loadtest.Options{Target: t, API: config.APIChat, Client: client,
		Workload: workload.NewSynthetic(o.prompt, o.tokens, 0, 0, 1, nil), NumPrompts: o.n,
		Rate: o.rate, Burstiness: 1, Concurrency: o.concurrency, IgnoreEOS: true, Seed: 1, IDPrefix: "lg"}
	if o.rate == 0 {
		lo.Rate = math.Inf(1)
	}
	if o.fidelity {
		lo.OnResult = func(rec *loadtest.Record, res *prober.Result) {
			if res.Success() {
				mu.Lock()
				reads = append(reads, reading{id: "lg-" + strconv.FormatInt(rec.Index, 10), start: res.Start, ttft: res.TTFT, itl: res.ITL})
				mu.Unlock()
			}
		}
	}
	run, err := loadtest.Execute(context.Background(), lo)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rep := summary.Summarize(run, summary.SLO{}, nil)
	r := &result{ok: rep.Completed, failed: rep.Failed, tokens: rep.TotalOutput, peak: rep.PeakInFlight, dur: rep.Duration}
	if !lo.ClosedLoop() {
		for i := range run.Records {
			r.lag = append(r.lag, run.Records[i].Lag())
		}
	}
	if o.fidelity {
		r.ttftErr, r.itlErr = fidelity(url, reads)
	}
	for reason, n := range rep.FailedBy {
		fmt.Fprintf(os.Stderr, "failed %s: %d (%s)\n", reason, n, run.Errors[reason])
	}
	return r
}

// fidelity fetches the mock's write times and compares.
func fidelity(url string, reads []reading) (ttftErr, itlErr []time.Duration) {
	for _, rd := range reads {
		resp, err := http.Get(url + "/trace?id=" + rd.id)
		if err != nil {
			continue
		}
		var tt struct {
			Content []int64 `json:"content"`
		}
		ok := resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&tt) == nil
		resp.Body.Close()
		if !ok || len(tt.Content) == 0 {
			continue
		}
		start := rd.start.UnixNano()
		ttftErr = append(ttftErr, time.Duration(start+int64(rd.ttft)-tt.Content[0]))
		// One gap per chunk on both sides (the prober counts as vllm bench).
		for k := 0; k+1 < len(tt.Content) && k < len(rd.itl); k++ {
			itlErr = append(itlErr, rd.itl[k]-time.Duration(tt.Content[k+1]-tt.Content[k]))
		}
	}
	return ttftErr, itlErr
}

func serve(addr string, o opts) {
	m := mockvllm.DefaultOptions()
	m.TTFT, m.ITL = mockvllm.Dist{Mean: o.ttft}, mockvllm.Dist{Mean: o.itl}
	m.BatchSlowdown, m.MaxRunning, m.KVBlocks, m.PrefixCacheHitRate = 0, 0, 0, 0
	m.TokensPerChunk = o.perChunk
	m.TraceCapacity = 20000
	mock := mockvllm.New(m)
	harness.ServeMock(addr, mock, func(tr mockvllm.Trace) any {
		var content []int64
		for _, ch := range tr.Chunks {
			if ch.Content {
				content = append(content, ch.At.UnixNano())
			}
		}
		return map[string]any{"content": content}
	})
}

// poissonSchedule is the open-loop plan both clients follow.
func poissonSchedule(rate float64, n int) []time.Duration {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]time.Duration, n)
	var at time.Duration
	for i := range out {
		out[i] = at
		if rate > 0 {
			at += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
		}
	}
	return out
}

func rateStr(r float64) string {
	if r == 0 {
		return "closed"
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}
