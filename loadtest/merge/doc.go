// Package merge owns `llm-prober bench merge`'s core: the manifest a
// shard writes into its result file (Manifest: which shard of how many,
// the shared start, the run's Spec, the deciding flags, its clock
// estimate and send lag), the checks that a set of files are shards
// 0…N−1 of one run, and the union of their raw records rebuilt as one
// loadtest.Run, so that summary computes every statistic exactly as if
// one process had run it; the records in completion order, as one
// process lists them, and Replay reads them again in that order for the
// merged file (order.go). A sweep's files (one sharded run per rate)
// are grouped by rate (GroupByRate, CheckSweep) and handed to the
// replayed sweep point by point, each checked for the seed bench --sweep
// gives it (Points).
//
// Imports: loadtest, loadtest/shard and loadtest/resultfile. Never
// summary, report or the driver: the driver summarises, decides and
// prints the union like any run.
package merge
