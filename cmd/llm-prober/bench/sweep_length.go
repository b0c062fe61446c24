package bench

import (
	"fmt"
	"time"
)

// Before a sweep's points run, say how long --min-samples makes them
// when it lengthens --duration (issue 33: the README's --duration 60s
// sweep silently became more than an hour on a slow server).

// minSamplesRate is the rate below which --min-samples lengthens a
// --duration point, or 0 when it never does.
func (b *Config) minSamplesRate() float64 {
	if b.MinSamples <= 0 || b.Duration <= 0 {
		return 0
	}
	return float64(b.MinSamples) / b.Duration.Seconds()
}

// announceMinSamples warns, before anything runs, that low rates run
// longer than --duration.
func (env *benchEnv) announceMinSamples() {
	b := env.b
	if r := b.minSamplesRate(); r > 0 {
		fmt.Fprintf(env.log, "sweep: --min-samples %d lengthens --duration %s at rates below %.2f req/s (%d requests a point; at 1 req/s %s); --min-samples 0 keeps %s a point\n",
			b.MinSamples, b.Duration, r, b.MinSamples, roundS(time.Duration(b.MinSamples)*time.Second), b.Duration)
	}
}

// announcePlan gives the expected length of the open-loop points once
// their rates are known, before the first runs, when --min-samples
// lengthens any of them.
func (env *benchEnv) announcePlan(rates []float64) {
	b := env.b
	limit := b.minSamplesRate()
	if limit <= 0 || len(rates) == 0 || rates[0] >= limit {
		return
	}
	var total time.Duration
	for _, r := range rates {
		o := env.options(r, 0)
		sizeForP99(&o, b.MinSamples)
		total += o.Duration
	}
	fmt.Fprintf(env.log, "sweep: %d points from %.2f to %.2f req/s take about %s (not %s: --min-samples %d; the lowest rate alone %s), more if the sweep extends or refines\n",
		len(rates), rates[0], rates[len(rates)-1], roundS(total), roundS(time.Duration(len(rates))*b.Duration),
		b.MinSamples, roundS(time.Duration(float64(b.MinSamples)/rates[0]*float64(time.Second))))
}

func roundS(d time.Duration) string { return d.Round(time.Second).String() }
