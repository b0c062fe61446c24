package main

import (
	"flag"
	"time"
)

// bounds are what --hostile checks; the defaults are the ones
// docs/reliability.md promises.
type bounds struct {
	rssMiB     float64       // peak RSS above the calm baseline
	ready      time.Duration // every GET /-/ready
	overrun    time.Duration // a probe's duration past its timeout
	goroutines float64       // end above baseline (a probe in flight)
	fds        float64       // end above baseline
	reload     time.Duration // a hostile config's reload must fail within
	calm       time.Duration // baseline phase before the targets turn hostile
	settle     time.Duration // calm phase after, before the end figures
}

func (b *bounds) register() {
	flag.Float64Var(&b.rssMiB, "hostile.rss-mib", 64, "Bound on peak RSS above the baseline, MiB.")
	flag.DurationVar(&b.ready, "hostile.ready", 50*time.Millisecond, "Bound on every /-/ready answer.")
	flag.DurationVar(&b.overrun, "hostile.overrun", 100*time.Millisecond, "Bound on how long a probe may outlive its timeout.")
	flag.Float64Var(&b.goroutines, "hostile.goroutines", 4, "Goroutines the end may have above the baseline (medians).")
	flag.Float64Var(&b.fds, "hostile.fds", 1, "Open files the end may have above the baseline (medians).")
	flag.DurationVar(&b.reload, "hostile.reload", 2*time.Second, "Bound on a reload of a hostile config (which must fail).")
	flag.DurationVar(&b.calm, "hostile.calm", 20*time.Second, "Calm phase before the targets turn hostile (the baseline is its last 10s).")
	flag.DurationVar(&b.settle, "hostile.settle", 30*time.Second, "Calm phase after the hostile run (the end figures are its last 10s).")
}
