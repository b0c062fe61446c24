// Package loadtest is the load engine behind `llm-prober bench`: it sends
// a workload's requests to one target on a schedule (open loop at a rate
// with Poisson or gamma arrivals, a ramp or a trace's timeline; closed
// loop with N users; multi-turn sessions) and measures each with the
// prober's own engine (prober.Run, kernel receive times). Execute returns
// a Run: one compact Record per request (104 bytes) and the inter-token
// gaps in a log-linear histogram, so a million requests fit in well under
// 1 GB. It owns the send loops, the waker that keeps send lag under a
// millisecond, the idle-connection watch and the GC tuning.
//
// What a run means (percentiles, goodput, verdict) is summary's; this
// package judges nothing and prints nothing.
//
// Imports: prober, config, internal/textfmt and the lower bench packages
// stats and workload. Never summary, sweep, report or the command driver.
package loadtest
