// Package sweep runs a rate sweep to the saturation knee: the synchronous
// baseline, the maximum-throughput point, rates in between and the
// refinement around the knee, each a summary.Report; the knee's rule and
// its interval. How a point is run is the caller's (a callback), so the
// sweep's logic is tested without a server.
//
// Imports: summary, stats. Never resultfile, compare, report or the driver.
package sweep
