// Package mergecmd is the driver of `llm-prober bench merge`: its flags
// (registered under bench's command by cmd/llm-prober/bench), the
// merged run's text report, result file (the records in the order one
// process lists them), CSV, HTML page and exit code, and a merged
// sweep: bench --sweep's decisions replayed over one sharded run per
// rate. The union itself is loadtest/merge's; what it means is
// summary's, as for any run.
//
// Imports: loadtest, loadtest/merge, loadtest/report,
// loadtest/resultfile, loadtest/serverwatch, loadtest/summary,
// loadtest/sweep, loadtest/workload, prober, internal/textfmt and
// cmd/llm-prober/bench/exitcode. Never cmd/llm-prober/bench, which
// imports it.
package mergecmd
