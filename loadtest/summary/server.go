package summary

import (
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// AttachServer scales the preemptions to the run's measured requests.
func AttachServer(s *serverwatch.ServerReport, rep *Report) {
	if n := rep.Completed + rep.Failed + rep.Warmup; n > 0 { // the counters span the warm-up too
		s.PreemptionsPer100 = 100 * s.Preemptions / float64(n)
	}
}
