package summary

import (
	"time"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// AttachServer scales the preemptions to the run's requests, and the
// server's mean queue time to all of them: a server that records queue
// time only for requests that waited (the vLLM simulator) gives the mean
// of those, which overstates it, and above bench's TTFT it made the
// prefill share negative.
func AttachServer(s *serverwatch.ServerReport, rep *Report) {
	n := float64(rep.Completed + rep.Failed + rep.Warmup) // the counters span the warm-up too
	if n <= 0 {
		return
	}
	s.PreemptionsPer100 = 100 * s.Preemptions / n
	if s.MeanQueueTime > 0 && s.QueueCount > 0 && s.QueueCount < n {
		s.MeanQueueTime = time.Duration(float64(s.MeanQueueTime) * s.QueueCount / n)
	}
}
