// Package report writes what bench found, in every format a person or a
// program reads: the text report in vllm bench serve's layout (with the
// server's evidence, stages, turns, uncertainty and --num-runs), the
// per-request CSV, the sweep's SVG curve and the self-contained HTML page
// (charts drawn by one SVG helper), the progress line, and the live
// listener that serves a run in the daemon's metric families
// (--web.listen-address); and a configuration sweep's table and page
// (cfgsweep's result: every configuration's knee and curves).
//
// Imports: every bench package below it (loadtest, stats, summary, sweep,
// cfgsweep, serverwatch, capacity) and the exposition helpers. Never the
// driver.
package report
