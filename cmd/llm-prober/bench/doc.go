// Package bench is the driver of `llm-prober bench`: from the flags'
// Config to what runs (one run, --num-runs repeats, a sweep, a plan only,
// a configuration sweep: --server-cmd, a rate sweep per configuration),
// the files it writes (JSON, CSV, HTML, SVG, knee and workload files),
// and the exit code (ExitOK … ExitFailOn); a shard's part of a run
// (--shard, --start-at); `bench compare`'s (RunCompare). `bench merge`
// is mergecmd's, registered under bench's command here; both end with
// exitcode's codes. Flags are registered in cmd/llm-prober; the work is
// done by the loadtest packages this one wires together.
//
// Imports: any loadtest package, capacity, capacity/promsource, config,
// prober, prompt, collector, and its own sub-packages mergecmd and
// exitcode (which never import it). Imported only by cmd/llm-prober.
package bench
