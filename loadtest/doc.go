// Package loadtest is the load generator behind `llm-prober bench`: open-
// and closed-loop runs of streaming requests against an OpenAI-compatible
// server, measured with the prober's own engine (prober.Run, kernel receive
// times) and summarised with vllm bench serve's definitions; rate sweeps to
// the saturation knee; and capacity plans from the knee. RunBench is the
// driver the command calls with its flags' BenchConfig: it checks them,
// decides what to run (one run, repeats, a sweep), judges the outcome (the
// exit codes) and writes the reports and files.
//
// Per-request results are kept compactly (Record, 104 bytes), and
// inter-token gaps go into a log-linear histogram with a relative error
// under 0.05 %, so a run of a million requests fits in well under 1 GB.
package loadtest
