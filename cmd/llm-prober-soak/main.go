// Command llm-prober-soak runs the real llm-prober binary against a mock
// vLLM server that injects every fault class at random, for a fixed time,
// and prints RSS, goroutines and probe counts over time. Half-way through
// it changes the config and reloads, and it checks that no counter ever
// decreases. It exits non-zero if a check fails. See docs/reliability.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

type options struct {
	prober    string
	targets   int
	duration  time.Duration
	interval  time.Duration
	timeout   time.Duration
	sample    time.Duration
	faultRate float64
	workDir   string
}

func main() {
	var o options
	flag.StringVar(&o.prober, "prober", "", "Path to the llm-prober binary (required; go build -o /tmp/llm-prober ./cmd/llm-prober).")
	flag.IntVar(&o.targets, "targets", 1000, "Number of targets.")
	flag.DurationVar(&o.duration, "duration", 30*time.Minute, "How long to run.")
	flag.DurationVar(&o.interval, "interval", 30*time.Second, "Probe interval of every target.")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "Probe timeout of every target.")
	flag.DurationVar(&o.sample, "sample", 30*time.Second, "How often to sample and print a row.")
	flag.Float64Var(&o.faultRate, "fault-rate", 0.3, "Share of mock requests that get a fault, spread evenly over every fault class.")
	flag.StringVar(&o.workDir, "work-dir", "", "Where to write the config and the prober's log (default: a temporary directory).")
	flag.Parse()
	if o.prober == "" {
		fmt.Fprintln(os.Stderr, "llm-prober-soak: --prober is required")
		os.Exit(2)
	}
	if err := soak(o); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("PASS")
}
