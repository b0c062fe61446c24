// Package compare compares two result files: every metric in summary's
// catalogue, with a significance test for each, --max-regression
// thresholds, and the comparison's text. Two --num-runs summaries are
// tested across runs (Welch's t on the runs' values); two single runs
// across their requests without taking them for independent (a block
// bootstrap over time-ordered requests; ITL on its pooled gaps; two
// proportions for shares), with a warning that run-to-run variation is
// unknown. simulate_test.go measures the coverage and false alarms
// docs/performance.md quotes.
//
// Imports: resultfile, summary, stats. Never report or the driver.
package compare
