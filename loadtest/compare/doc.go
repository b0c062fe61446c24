// Package compare compares two result files: every metric in summary's
// catalogue, with a significance test for each (bootstrap on quantile
// differences, Mann–Whitney on per-request values, two proportions for
// shares), --max-regression thresholds, and the comparison's text.
//
// Imports: resultfile, summary, stats. Never report or the driver.
package compare
