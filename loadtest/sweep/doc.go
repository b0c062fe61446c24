// Package sweep runs a rate sweep to the saturation knee: the synchronous
// baseline, the maximum-throughput point, rates in between and the
// refinement around the knee, each a summary.Report; the knee's rule and
// its interval. How a point is run is the caller's (a callback), so the
// sweep's logic is tested without a server.
//
// WriteJSON writes the sweep's result file; CheckFlags and ParseRates read
// the flags bench --sweep and bench merge share.
//
// Imports: summary, stats, workload (a rate's bounds). Never resultfile,
// compare, report or the driver.
package sweep
