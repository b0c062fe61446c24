// Command fidelity measures how far the prober's TTFT and ITL readings are
// from the true emission times of the mock vLLM server, at several numbers
// of concurrent streams.
//
// In the default in-process mode the mock serves from this process on
// 127.0.0.1 and its trace (mockvllm.Server.Emissions) shares the prober's
// monotonic clock. With -mode=subprocess the mock runs in a child process
// (this binary re-executed) and reports its write times on the wall clock,
// which both processes read from the same kernel clock (CLOCK_REALTIME);
// the prober then competes with the mock only for the CPU, not for its Go
// scheduler and heap.
//
// The error of a reading is (when the prober saw a chunk) − (when the mock
// started writing it): the loopback delivery plus every delay in the
// prober. An ITL error is measured gap − true gap.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
	"github.com/llm-prober/llm-prober/prober"

	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

type opts struct {
	streams   []int
	tokens    int
	ttft, itl time.Duration
	spread    time.Duration
	mode      string
	rounds    int
	client    string // daemon or bench
}

func main() {
	var (
		o         opts
		streams   = flag.String("streams", "1,100,500", "comma-separated numbers of concurrent streams")
		serveMock = flag.String("serve-mock", "", "internal: serve the mock on this address (subprocess mode)")
	)
	flag.IntVar(&o.tokens, "tokens", 100, "tokens per stream (one per chunk)")
	flag.DurationVar(&o.ttft, "ttft", 50*time.Millisecond, "mock prefill time")
	flag.DurationVar(&o.itl, "itl", 20*time.Millisecond, "mock gap between chunks")
	flag.DurationVar(&o.spread, "spread", time.Second, "stream starts are spread evenly over this window")
	flag.StringVar(&o.mode, "mode", "inprocess", "inprocess or subprocess")
	flag.IntVar(&o.rounds, "rounds", 1, "repeat each configuration this many times (figures are per round)")
	flag.StringVar(&o.client, "client", "daemon", "HTTP client: daemon (prober.NewClient, as the scheduler builds it) or bench (prober.NewLoadClient, as llm-prober bench builds it)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *serveMock != "" {
		serve(*serveMock, o)
		return
	}
	if o.client != "daemon" && o.client != "bench" {
		fmt.Fprintf(os.Stderr, "bad -client %q: want daemon or bench\n", o.client)
		os.Exit(2)
	}
	for _, f := range strings.Split(*streams, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "bad -streams %q\n", *streams)
			os.Exit(2)
		}
		o.streams = append(o.streams, n)
	}
	fmt.Printf("# fidelity mode=%s client=%s tokens=%d ttft=%v itl=%v spread=%v GOMAXPROCS=%d load=%s\n",
		o.mode, o.client, o.tokens, o.ttft, o.itl, o.spread, runtime.GOMAXPROCS(0), harness.LoadAvg())
	fmt.Printf("%-10s %6s %8s | %-30s | %-30s | %-30s | %s\n", "mode", "streams", "round",
		"TTFT err p50/p99/max", "ITL err p50/p99/max (abs)", "E2EL err p50/p99/max", "chunks/s, CPU")
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	failed := false
	for _, n := range o.streams {
		for round := range o.rounds {
			if !runOne(o, n, round) {
				failed = true
			}
		}
	}
	if failed {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func mockOptions(o opts) mockvllm.Options {
	m := mockvllm.DefaultOptions()
	m.TTFT = mockvllm.Dist{Mean: o.ttft}
	m.ITL = mockvllm.Dist{Mean: o.itl}
	m.BatchSlowdown = 0
	m.MaxRunning, m.KVBlocks = 0, 0 // every stream runs at once
	m.TraceCapacity = 20000
	return m
}

// trueTimes is what the mock wrote for one request, in ns on a clock
// shared with the prober.
type trueTimes struct {
	Content []int64 `json:"content"`
	Done    int64   `json:"done"`
}

func fromTrace(tr mockvllm.Trace, clock func(time.Time) int64) trueTimes {
	var t trueTimes
	for _, ch := range tr.Chunks {
		switch {
		case ch.Content:
			t.Content = append(t.Content, clock(ch.At))
		case ch.Kind == mockvllm.KindDone:
			t.Done = clock(ch.At)
		}
	}
	return t
}

// serve runs the mock in this (child) process with a /trace endpoint that
// reports write times on the wall clock.
func serve(addr string, o opts) {
	mock := mockvllm.New(mockOptions(o))
	harness.ServeMock(addr, mock, func(tr mockvllm.Trace) any {
		return fromTrace(tr, func(t time.Time) int64 { return t.UnixNano() })
	})
}

func runOne(o opts, streams, round int) bool {
	var (
		url     string
		lookup  func(id string) (trueTimes, bool)
		cleanup func()
		// clock maps a prober reading onto the clock of lookup's times.
		clock func(time.Time) int64
	)
	if o.mode == "subprocess" {
		u, cmd, err := harness.StartMock("-ttft", o.ttft.String(), "-itl", o.itl.String())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return false
		}
		url = u
		cleanup = func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
		clock = func(t time.Time) int64 { return t.UnixNano() }
		lookup = func(id string) (trueTimes, bool) {
			resp, err := http.Get(url + "/trace?id=" + id)
			if err != nil {
				return trueTimes{}, false
			}
			defer resp.Body.Close()
			var t trueTimes
			return t, resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&t) == nil
		}
	} else {
		mock := mockvllm.New(mockOptions(o))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return false
		}
		srv := &http.Server{Handler: mock}
		go func() { _ = srv.Serve(ln) }()
		url = "http://" + ln.Addr().String()
		cleanup = func() { mock.Close(); _ = srv.Close() }
		// Monotonic: both sides' times come from this process.
		base := time.Now()
		clock = func(t time.Time) int64 { return int64(t.Sub(base)) }
		lookup = func(id string) (trueTimes, bool) {
			tr, ok := mock.Emissions(id)
			return fromTrace(tr, clock), ok
		}
	}
	defer cleanup()

	target := &config.Target{Name: "t", URL: url, Model: "mock-model"}
	// The product's client, as the scheduler builds it (kernel receive
	// times included), or as bench does: the same semantics with smaller
	// per-connection buffers (httpclient.NewLean).
	newClient := prober.NewClient
	if o.client == "bench" {
		newClient = prober.NewLoadClient
	}
	client, err := newClient(target, time.Minute)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return false
	}
	defer client.CloseIdleConnections()
	module := &config.Module{Name: "chat", API: config.APIChat, MaxTokens: o.tokens, IgnoreEOS: true,
		Messages: []config.Message{{Role: "user", Content: "hi"}}}

	var (
		mu                     sync.Mutex
		ttftErr, itlErr, e2eEr []time.Duration
		errs                   int
		wg                     sync.WaitGroup
	)
	runtime.GC()
	cpu0, wall0 := harness.CPUTime(), time.Now()
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(o.spread * time.Duration(i) / time.Duration(streams))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			id := fmt.Sprintf("fid-%d-%d-%d", streams, round, i)
			r := prober.Run(ctx, client, target, module, id, "fidelity")
			if !r.Success() || r.OutputTokens != o.tokens {
				mu.Lock()
				errs++
				if errs <= 3 {
					fmt.Fprintf(os.Stderr, "probe %s: %s %v, %d tokens\n", id, r.Reason, r.Err, r.OutputTokens)
				}
				mu.Unlock()
				return
			}
			tt, ok := lookup(id)
			if !ok || len(tt.Content) != len(r.ITL)+1 {
				mu.Lock()
				errs++
				fmt.Fprintf(os.Stderr, "probe %s: trace missing or %d content chunks for %d ITLs\n", id, len(tt.Content), len(r.ITL))
				mu.Unlock()
				return
			}
			start := clock(r.Start)
			mu.Lock()
			defer mu.Unlock()
			ttftErr = append(ttftErr, time.Duration(start+int64(r.TTFT)-tt.Content[0]))
			e2eEr = append(e2eEr, time.Duration(start+int64(r.E2EL)-tt.Done))
			for k, gap := range r.ITL {
				itlErr = append(itlErr, gap-time.Duration(tt.Content[k+1]-tt.Content[k]))
			}
		}()
	}
	wg.Wait()
	wall := time.Since(wall0)
	cpu := harness.CPUTime() - cpu0
	chunks := float64(streams*(o.tokens+3)) / wall.Seconds()
	fmt.Printf("%-10s %6d %8d | %-30s | %-30s | %-30s | %.0f/s, %.2f cores (this process)\n", o.mode, streams, round,
		harness.Summary(ttftErr, true), harness.Summary(itlErr, true), harness.Summary(e2eEr, true), chunks, cpu.Seconds()/wall.Seconds())
	if errs > 0 {
		fmt.Printf("  %d of %d probes failed or had no trace\n", errs, streams)
		return false
	}
	return true
}
