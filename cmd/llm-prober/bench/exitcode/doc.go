// Package exitcode owns how `llm-prober bench`, `bench compare` and
// `bench merge` end besides 0 (success): one set of codes, so that a
// merged run ends as the one run would have.
//
// Imports: nothing of this module. Imported by cmd/llm-prober/bench and
// its sub-packages.
package exitcode

// How a bench invocation ends besides 0 (success); the command exits
// with it.
const (
	Error    = 1 // a run error, or an interrupt (the partial report is still printed and written)
	BadInput = 2 // a bad setting, checked before anything runs, or a bad trace, dataset or workload file
	FailOn   = 3 // a --fail-on condition held
	// Failed: the run's failures void it: no request succeeded, more
	// than summary.MaxFailedShare of a single run's requests failed, no
	// rate of a sweep met the knee's SLO attainment, or every rate met it
	// (the knee is above the top rate: a lower bound, no knee).
	Failed = 4
)
