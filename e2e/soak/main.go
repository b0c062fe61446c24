// Command llm-prober-soak runs the real llm-prober binary for a fixed time
// and checks that it stays within its bounds. By default it probes a mock
// vLLM server that injects every fault class at random, prints RSS,
// goroutines and probe counts over time, reloads half-way and checks that
// no counter ever decreases. With --hostile it probes ten hostile servers
// instead (hostile.go), and then runs plan and bench on hostile inputs
// (hostile_inputs.go; --inputs runs only those), and checks memory, goroutines, files, readiness
// latency, probe overrun and failure reasons against fixed bounds. It exits
// non-zero if a check fails. See docs/reliability.md.
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
	hostile   bounds // --hostile only
}

func main() {
	var o options
	var hostile, inputs, serve bool
	flag.StringVar(&o.prober, "prober", "", "Path to the llm-prober binary (required; go build -o /tmp/llm-prober ./cmd/llm-prober).")
	flag.IntVar(&o.targets, "targets", 1000, "Number of targets.")
	flag.DurationVar(&o.duration, "duration", 30*time.Minute, "How long to run (--hostile: 10m).")
	flag.DurationVar(&o.interval, "interval", 30*time.Second, "Probe interval of every target (--hostile: 5s).")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "Probe timeout of every target (--hostile: 3s).")
	flag.DurationVar(&o.sample, "sample", 30*time.Second, "How often to sample and print a row (--hostile samples every second and prints every 30s).")
	flag.Float64Var(&o.faultRate, "fault-rate", 0.3, "Share of mock requests that get a fault, spread evenly over every fault class.")
	flag.StringVar(&o.workDir, "work-dir", "", "Where to write the config and the prober's log (default: a temporary directory).")
	flag.BoolVar(&hostile, "hostile", false, "Probe thirteen hostile servers instead of the mock (--targets and --fault-rate do not apply).")
	flag.BoolVar(&inputs, "inputs", false, "Only run plan and bench on hostile Prometheus answers and files (what --hostile runs after the prober), a minute or two.")
	o.hostile.register()
	flag.BoolVar(&serve, "hostile-serve", false, "Internal: serve the hostile targets in this process (the --hostile run starts it).")
	flag.Parse()
	if serve {
		if err := serveHostile(); err != nil {
			fmt.Fprintln(os.Stderr, "hostile servers:", err)
			os.Exit(1)
		}
		return
	}
	if o.prober == "" {
		fmt.Fprintln(os.Stderr, "llm-prober-soak: --prober is required")
		os.Exit(2)
	}
	run := soak
	switch {
	case inputs:
		run = inputsOnly
	case hostile:
		hostileDefaults(&o)
		run = hostileSoak
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("PASS")
}

// hostileDefaults gives --hostile its own defaults for flags not set.
func hostileDefaults(o *options) {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["duration"] {
		o.duration = 10 * time.Minute
	}
	if !set["interval"] {
		o.interval = 5 * time.Second
	}
	if !set["timeout"] {
		o.timeout = 3 * time.Second
	}
}
