// Package stats holds the numbers behind bench's conclusions, with no
// domain types: exact percentiles (numpy's linear rule), the log-linear
// histogram for inter-token gaps, bootstrap and order-statistic
// intervals, batch means over time-ordered requests (Grouped,
// BatchEstimate, BatchDiffs), Student's t and Welch's test, the Mann–Whitney and
// two-proportion tests, and the gamma renewal process that spaces
// open-loop arrivals.
//
// Imports: the standard library only.
package stats
