package loadtest

import (
	"fmt"
	"time"
)

// Bottleneck names, most severe first.
const (
	BottleneckKVCache  = "kv_cache_exhausted"
	BottleneckPreempt  = "too_many_sequences"
	BottleneckBatch    = "batch_too_small"
	BottleneckPrefill  = "prefill_too_slow"
	BottleneckOptimal  = "near_optimal"
	BottleneckClient   = "load_generator_lagging"
	BottleneckNoMetric = "unknown"
)

// Verdict is the run's bottleneck with the evidence behind it.
type Verdict struct {
	Bottleneck string   `json:"bottleneck"`
	Summary    string   `json:"summary"`
	Evidence   []string `json:"evidence"`
}

// Thresholds of the verdict; the same spirit as the shipped recording
// rules (alerts/llm-prober-rules.yml), on one run instead of 5 minutes.
const (
	kvFull        = 0.95                  // peak KV-cache usage that counts as exhausted
	preemptPer100 = 1.0                   // preemptions per 100 requests that count as preempting
	prefillShare  = 0.5                   // TTFT minus queueing over E2EL minus queueing
	clientLagP99  = 10 * time.Millisecond // worth a caveat
	clientLagMean = 10.0                  // ms: the offered load was not delivered
)

// Judge names the bottleneck from the client's report and the server's.
func Judge(rep *Report, srv *ServerReport) Verdict {
	var v Verdict
	add := func(f string, a ...any) { v.Evidence = append(v.Evidence, fmt.Sprintf(f, a...)) }
	if rep.Mode != "closed-loop" && rep.Lag.Count > 0 && rep.MaxConcurrency == 0 {
		switch p99 := rep.Lag.Value(99); {
		case rep.Lag.Mean > clientLagMean:
			add("mean send lag behind the schedule %.1f ms (p99 %.1f ms): the load generator could not keep up (CPU starved?)", rep.Lag.Mean, p99)
			v.Bottleneck, v.Summary = BottleneckClient, "the load generator fell behind its schedule; the offered rate was not delivered"
			return v
		case p99 > float64(clientLagP99)/1e6:
			add("caveat: p99 send lag behind the schedule %.1f ms; arrivals were late at times (a busy client machine)", p99)
		}
	}
	if srv == nil || !srv.Available {
		v.Bottleneck, v.Summary = BottleneckNoMetric, "no server metrics; judge from latency alone"
		if srv != nil && srv.Err != "" {
			add("server metrics: %s", srv.Err)
		}
		return v
	}
	queue := max(srv.MeanQueueTime, 0)
	ttft, e2el := time.Duration(rep.TTFT.Mean*1e6), time.Duration(rep.E2EL.Mean*1e6)
	share := 0.0
	if e2el > queue {
		share = float64(ttft-queue) / float64(e2el-queue)
	}
	add("peak KV-cache usage %.1f%%", 100*srv.PeakKVUsage)
	add("preemptions %.0f (%.2f per 100 requests)", srv.Preemptions, srv.PreemptionsPer100)
	add("peak waiting requests %.0f (mean %.1f over %d scrapes), peak running %.0f", srv.PeakWaiting, srv.MeanWaiting, srv.Scrapes, srv.PeakRunning)
	if srv.MeanQueueTime >= 0 {
		add("mean server queue time %.1f ms", float64(srv.MeanQueueTime)/1e6)
	}
	add("prefill share of service time %.0f%% (mean TTFT %.1f ms, E2EL %.1f ms)", 100*share, rep.TTFT.Mean, rep.E2EL.Mean)
	switch {
	case srv.PeakKVUsage >= kvFull && (srv.Preemptions > 0 || srv.PeakWaiting > 0):
		v.Bottleneck = BottleneckKVCache
		v.Summary = "the KV cache is full: requests wait or are preempted for memory (more GPU memory, shorter contexts, quantised KV cache, or fewer replicas' load)"
	case srv.PreemptionsPer100 >= preemptPer100:
		v.Bottleneck = BottleneckPreempt
		v.Summary = "the scheduler admits more sequences than the KV cache holds and preempts them (lower max_num_seqs, or add KV memory)"
	case srv.MeanWaiting >= 1 || (srv.PeakWaiting >= 1 && (float64(queue) > rep.E2EL.Mean*1e6/10 || ttftMissed(rep))):
		v.Bottleneck = BottleneckBatch
		v.Summary = "requests queue while the KV cache has room: the running batch is capped (raise max_num_seqs / max_num_batched_tokens)"
	case share > prefillShare:
		v.Bottleneck = BottleneckPrefill
		v.Summary = "prefill dominates the service time (chunked prefill, prefix caching, or a prefill/decode split)"
	default:
		v.Bottleneck = BottleneckOptimal
		v.Summary = "no queueing, no preemption, KV cache not full: the server is near its best at this load"
	}
	return v
}

// ttftMissed reports whether the TTFT objective failed for more than 1 %
// of requests (p99 above it): with requests seen waiting, that is queueing.
func ttftMissed(rep *Report) bool {
	return rep.SLO.TTFT > 0 && rep.TTFT.Value(99) > float64(rep.SLO.TTFT)/1e6
}
