// Package summary says what a run means: Summarize turns a loadtest.Run
// into a Report with vllm bench serve's definitions (throughput, TTFT,
// TPOT, ITL, E2EL percentiles, peaks), the latency basis counted from the
// schedule (schedule.go), SLOs and goodput, stages of shaped runs and
// turns of sessions, --fail-on conditions, the verdict on what limited the
// run (with the server's evidence from serverwatch), repeated runs
// (--num-runs), and the names of every metric (the vllm JSON keys and the
// catalogue compare and --num-runs share). It prints nothing.
//
// Imports: loadtest, stats, serverwatch, prober, internal/textfmt. Never sweep,
// resultfile, compare, report or the command driver.
package summary
