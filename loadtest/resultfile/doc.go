// Package resultfile owns bench's result file, the JSON written by
// --output-json: vllm bench serve's keys first, then ours, then every
// request's record (spooled to disk while the run goes, so memory stays
// flat), and the reader that loads it back for `bench compare`, with the
// records' latencies recomputed on the same basis.
//
// Imports: loadtest, summary, prober. Never compare, report or the driver.
package resultfile
