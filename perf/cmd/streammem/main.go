// Command streammem measures the peak RSS of `llm-prober bench` holding
// many streams at once (issue 35): a closed loop of -streams users sending
// -n requests of -tokens output tokens to `llm-prober mock-vllm` in
// another process. The figure is the bench process's alone (its rusage
// ru_maxrss), never the mock's. With -baseline, a second binary runs the
// same, interleaved run by run, so both see the same machine.
//
//	go build -o /tmp/llm-prober ./cmd/llm-prober
//	cd perf && go run ./cmd/streammem -binary /tmp/llm-prober -runs 3
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llm-prober/llm-prober/perf/internal/harness"
)

type opts struct {
	streams, n, tokens, prompt int
	itl, ttft                  time.Duration
}

func main() {
	var o opts
	binary := flag.String("binary", "", "llm-prober binary to measure (required)")
	baseline := flag.String("baseline", "", "another llm-prober binary, measured interleaved with -binary")
	runs := flag.Int("runs", 3, "runs per binary")
	flag.IntVar(&o.streams, "streams", 1400, "concurrent streams (closed-loop users)")
	flag.IntVar(&o.n, "n", 20000, "requests per run")
	flag.IntVar(&o.tokens, "tokens", 64, "output tokens per request")
	flag.IntVar(&o.prompt, "prompt-tokens", 128, "prompt tokens per request")
	flag.DurationVar(&o.ttft, "ttft", 20*time.Millisecond, "mock prefill time")
	flag.DurationVar(&o.itl, "itl", 20*time.Millisecond, "mock gap between tokens")
	flag.Parse()
	if *binary == "" {
		fmt.Fprintln(os.Stderr, "streammem: -binary is required")
		os.Exit(2)
	}
	bins := []string{*binary}
	if *baseline != "" {
		bins = append(bins, *baseline)
	}
	fmt.Printf("streams=%d n=%d tokens=%d prompt=%d ttft=%v itl=%v runs=%d load=%s\n",
		o.streams, o.n, o.tokens, o.prompt, o.ttft, o.itl, *runs, harness.LoadAvg())
	peaks := make([][]float64, len(bins))
	for r := range *runs {
		for i, b := range bins {
			mib, line, err := once(b, o)
			if err != nil {
				fmt.Fprintf(os.Stderr, "streammem: %s run %d: %v\n", b, r+1, err)
				os.Exit(1)
			}
			peaks[i] = append(peaks[i], mib)
			fmt.Printf("  %s run %d: peak RSS %.0f MiB; %s; load %s\n", b, r+1, mib, line, harness.LoadAvg())
		}
	}
	for i, b := range bins {
		p := slices.Sorted(slices.Values(peaks[i]))
		fmt.Printf("%s: peak RSS median %.0f MiB (min %.0f, max %.0f, n=%d)\n", b, median(p), p[0], p[len(p)-1], len(p))
	}
}

// once runs the mock and one bench run against it; it returns the bench
// process's peak RSS in MiB and its throughput line.
func once(binary string, o opts) (float64, string, error) {
	addr := harness.FreeAddr()
	mock := exec.Command(binary, "mock-vllm", "--listen-address="+addr, "--max-running=1000000",
		"--kv-blocks=100000000", "--batch-slowdown=0", "--prefix-cache-hit-rate=0",
		"--ttft="+o.ttft.String(), "--ttft-jitter=0", "--itl="+o.itl.String(), "--itl-jitter=0")
	mock.Stderr = os.Stderr
	if err := mock.Start(); err != nil {
		return 0, "", err
	}
	defer func() { _ = mock.Process.Kill(); _ = mock.Wait() }()
	url := "http://" + addr
	if err := waitUp(url + "/v1/models"); err != nil {
		return 0, "", err
	}
	var out bytes.Buffer
	bench := exec.Command(binary, "bench", "--url="+url, "--model=mock-model", "--progress=off", "--ignore-eos",
		"--concurrency="+strconv.Itoa(o.streams), "--num-prompts="+strconv.Itoa(o.n),
		"--output-tokens="+strconv.Itoa(o.tokens), "--input-tokens="+strconv.Itoa(o.prompt))
	bench.Stdout, bench.Stderr = &out, os.Stderr
	if err := bench.Run(); err != nil {
		return 0, "", fmt.Errorf("bench: %w\n%s", err, out.String())
	}
	ru, ok := bench.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, "", fmt.Errorf("no rusage on this system")
	}
	return float64(ru.Maxrss) / 1024, pick(out.String(), "Successful requests:", "Request throughput (req/s):", "Peak requests in flight:"), nil
}

func waitUp(url string) error {
	for range 100 {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("mock at %s did not come up", url)
}

// pick returns the report's lines with these prefixes, joined.
func pick(report string, prefixes ...string) string {
	var got []string
	for _, l := range strings.Split(report, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				got = append(got, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return strings.Join(got, ", ")
}

func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
