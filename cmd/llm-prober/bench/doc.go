// Package bench is the driver of `llm-prober bench`: from the flags'
// Config to what runs (one run, --num-runs repeats, a sweep, a plan only,
// a configuration sweep: --server-cmd, a rate sweep per configuration),
// the files it writes (JSON, CSV, HTML, SVG, knee and workload files),
// and the exit code (ExitOK … ExitFailOn); a shard's part of a run
// (--shard, --start-at); `bench compare`'s (RunCompare) and `bench
// merge`'s (RunMerge). Flags are registered in cmd/llm-prober; the work is done
// by the loadtest packages this one wires together.
//
// Imports: any loadtest package, capacity, capacity/promsource, config,
// prober, prompt, collector. Imported only by cmd/llm-prober.
package bench
