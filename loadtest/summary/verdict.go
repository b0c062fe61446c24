package summary

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// Bottleneck names, most severe first.
const (
	BottleneckFailing  = "requests_failing"
	BottleneckCap      = "client_concurrency_cap"
	BottleneckKVCache  = "kv_cache_exhausted"
	BottleneckPreempt  = "too_many_sequences"
	BottleneckBatch    = "batch_too_small"
	BottleneckPrefill  = "prefill_too_slow"
	BottleneckOptimal  = "near_optimal"
	BottleneckClient   = "load_generator_lagging"
	BottleneckNoMetric = "unknown"
	// BottleneckUndetermined: the server's metrics and bench's latency
	// disagree, and nothing seen explains it.
	BottleneckUndetermined = "undetermined"
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
	// The generator held the rate back: its mean lag passed half the mean
	// arrival gap (and 1 ms), and it sent over a longer span than planned
	// by more than a gap.
	clientLagGaps = 0.5
	// capShare of the requests waiting for a --max-concurrency slot means
	// the cap, not the schedule, set the rate.
	capShare = 0.01
)

// MaxFailedShare is the share of measured requests that may fail before
// the verdict is requests_failing and bench exits 4 (with none
// succeeded, it always is).
const MaxFailedShare = 0.05

// Judge names the bottleneck from the client's report and the server's:
// failures first, then what held the offered rate back (the client's
// cap, the load generator) unless the server shows saturation, then the
// server's own bottleneck.
func Judge(rep *Report, srv *serverwatch.ServerReport) Verdict {
	var v Verdict
	add := func(f string, a ...any) { v.Evidence = append(v.Evidence, fmt.Sprintf(f, a...)) }
	if failing, why := rep.Failing(); failing {
		v.Bottleneck, v.Summary = BottleneckFailing, why
		for _, r := range rep.Reasons() {
			add("%s: %d of %d requests", r, rep.FailedBy[r], rep.Completed+rep.Failed)
		}
		if rep.Cancelled > 0 {
			add("cancelled (cut off by the run's end or an interrupt): %d", rep.Cancelled)
		}
		return v
	}
	if rep.Failed > 0 {
		add("caveat: %d of %d requests failed (%.1f%%, at most %g%% allowed)", rep.Failed, rep.Completed+rep.Failed,
			100*failedShare(rep), 100*MaxFailedShare)
	}
	if w := rep.CutShortWarning(); w != "" {
		add("caveat: %s", w)
	}
	rep.shapeCaveat(add)
	rep.stallEvidence(add)
	// The client's verdict still shows the server's evidence: it is why
	// the server was not named.
	client, clientSummary := clientHeldBack(rep, srv, add)
	if srv == nil || !srv.Available {
		v.Bottleneck, v.Summary = BottleneckNoMetric, "no server metrics; judge from latency alone"
		if client != "" {
			v.Bottleneck, v.Summary = client, clientSummary
		}
		if srv != nil && srv.Err != "" {
			add("server metrics: %s", srv.Err)
		}
		return v
	}
	serverEvidence(rep, srv, add)
	share, shareOK := prefillShareOf(rep, srv)
	if shareOK {
		add("prefill share of service time %.0f%% (mean TTFT %.1f ms, E2EL %.1f ms)", 100*share, rep.TTFT.Mean, rep.E2EL.Mean)
	} else {
		add("prefill share of service time: undetermined (the server's mean queue time %.1f ms is not below bench's mean TTFT %.1f ms)",
			float64(srv.MeanQueueTime)/1e6, rep.TTFT.Mean)
	}
	lost := lostBeforeServer(rep, srv, add)
	switch {
	case client != "":
		v.Bottleneck, v.Summary = client, clientSummary
	case lost == lostClient:
		v.Bottleneck = BottleneckClient
		v.Summary = "the client could not send the requests on time: bench's latency is its own send lag and connection time, not the server's (fewer requests at once, more client CPU, or several load generators)"
	case srv.KVReported && srv.PeakKVUsage >= kvFull && (srv.Preemptions > 0 || srv.PeakWaiting > 0):
		v.Bottleneck = BottleneckKVCache
		v.Summary = "the KV cache is full: requests wait or are preempted for memory (more GPU memory, shorter contexts, quantised KV cache, or fewer replicas' load)"
	case srv.PreemptionsReported && srv.PreemptionsPer100 >= preemptPer100:
		v.Bottleneck = BottleneckPreempt
		v.Summary = "the scheduler admits more sequences than the KV cache holds and preempts them (lower max_num_seqs, or add KV memory)"
	case srv.WaitingReported && (srv.MeanWaiting >= 1 || (srv.PeakWaiting >= 1 && (float64(max(srv.MeanQueueTime, 0)) > rep.E2EL.Mean*1e6/10 || ttftMissed(rep)))):
		v.Bottleneck = BottleneckBatch
		v.Summary = "requests queue while the KV cache has room: the running batch is capped (raise max_num_seqs / max_num_batched_tokens)"
	case lost == lostConflict:
		v.Bottleneck = BottleneckUndetermined
		v.Summary = "the evidence conflicts: bench's TTFT is far above the server's own, and neither the client's send lag nor the server's queue accounts for it (the network, a proxy, or the server's HTTP front end?); prefill share and headroom cannot be judged from bench's latency"
	case shareOK && share > prefillShare:
		v.Bottleneck = BottleneckPrefill
		v.Summary = "prefill dominates the service time (chunked prefill, prefix caching, or a prefill/decode split)"
	default:
		v.Bottleneck = BottleneckOptimal
		v.Summary = optimalSummary(srv)
	}
	return v
}

// serverEvidence lists the server's signals; a gauge or counter the
// server does not export is "not reported by the server", not 0.
func serverEvidence(rep *Report, srv *serverwatch.ServerReport, add func(string, ...any)) {
	const missing = "not reported by the server"
	if srv.KVReported {
		add("peak KV-cache usage %.1f%%", 100*srv.PeakKVUsage)
	} else {
		add("peak KV-cache usage: %s", missing)
	}
	if srv.PreemptionsReported {
		add("preemptions %.0f (%.2f per 100 requests)", srv.Preemptions, srv.PreemptionsPer100)
	} else {
		add("preemptions: %s", missing)
	}
	waiting, running := "peak waiting requests: "+missing, "peak running: "+missing
	if srv.WaitingReported {
		waiting = fmt.Sprintf("peak waiting requests %.0f (mean %.1f over %d scrapes)", srv.PeakWaiting, srv.MeanWaiting, srv.Scrapes)
	}
	if srv.RunningReported {
		running = fmt.Sprintf("peak running %.0f", srv.PeakRunning)
	}
	add("%s, %s", waiting, running)
	if srv.MeanQueueTime >= 0 {
		note := ""
		if n := float64(rep.Completed + rep.Failed + rep.Warmup); srv.QueueCount > 0 && srv.QueueCount < n {
			note = fmt.Sprintf(" (the server recorded a queue time for %.0f of %.0f requests, those that waited: averaged over all)", srv.QueueCount, n)
		}
		add("mean server queue time %.1f ms%s", float64(srv.MeanQueueTime)/1e6, note)
	}
	if srv.MeanTTFT > 0 {
		add("the server's own mean TTFT %.1f ms (bench's, from the send: %.1f ms)", float64(srv.MeanTTFT)/1e6, rep.TTFT.Mean)
	}
}

// prefillShareOf is TTFT minus the server's queueing over E2EL minus it,
// in [0, 1]; not ok when the queue time is not below TTFT (a server whose
// queue time and bench's TTFT disagree: no share can be read from them).
func prefillShareOf(rep *Report, srv *serverwatch.ServerReport) (float64, bool) {
	queue := float64(max(srv.MeanQueueTime, 0))
	ttft, e2el := rep.TTFT.Mean*1e6, rep.E2EL.Mean*1e6
	if e2el <= queue || ttft < queue {
		return 0, ttft == 0 && e2el == 0
	}
	return min(max((ttft-queue)/(e2el-queue), 0), 1), true
}

// optimalSummary says the server is near its best, naming only what it
// showed: "no queueing" only when no request was seen waiting, nothing
// of a gauge it does not export.
func optimalSummary(srv *serverwatch.ServerReport) string {
	var parts []string
	switch {
	case srv.WaitingReported && srv.PeakWaiting >= 1:
		parts = append(parts, fmt.Sprintf("brief queueing only (peak %.0f waiting, mean %.1f)", srv.PeakWaiting, srv.MeanWaiting))
	case srv.WaitingReported:
		parts = append(parts, "no queueing")
	}
	if srv.PreemptionsReported {
		parts = append(parts, "no preemption")
	}
	if srv.KVReported {
		parts = append(parts, "KV cache not full")
	}
	if len(parts) == 0 {
		return "nothing the server reports shows a limit: judge from latency (it exports no queue, preemption or KV-cache figures)"
	}
	return strings.Join(parts, ", ") + ": the server is near its best at this load"
}

// ttftMissed reports whether the TTFT objective failed for more than 1 %
// of requests (p99 above it): with requests seen waiting, that is queueing.
func ttftMissed(rep *Report) bool {
	if rep.SLO.TTFTPerToken > 0 {
		// The objective differs per request: count the misses.
		return rep.Completed > 0 && float64(rep.MissedBy["ttft"]) > 0.01*float64(rep.Completed)
	}
	return rep.SLO.TTFT > 0 && rep.BasisTTFT().Value(99) > float64(rep.SLO.TTFT)/1e6
}

// stallEvidence says how the max_itl objective fared: a stall (a
// preemption, a long prefill batched in) that the mean TPOT hides.
func (rep *Report) stallEvidence(add func(string, ...any)) {
	if rep.SLO.MaxITL <= 0 {
		return
	}
	slo := float64(rep.SLO.MaxITL) / 1e6
	if n := rep.MissedBy["max_itl"]; n > 0 {
		hidden := ""
		if rep.SLO.TPOT > 0 {
			hidden = fmt.Sprintf("; %d of them met the TPOT objective, whose mean hides the stall", rep.StalledTPOTMet)
		}
		add("max_itl: %d of %d successful requests stalled longer than the %g ms objective (worst gap per request p99 %.1f ms, longest %.1f ms)%s",
			n, rep.Completed, slo, rep.MaxITL.Value(99), rep.LongestGap, hidden)
		return
	}
	add("max_itl: no successful request stalled longer than the %g ms objective (worst gap per request p99 %.1f ms)", slo, rep.MaxITL.Value(99))
}

func failedShare(rep *Report) float64 {
	if n := rep.Completed + rep.Failed; n > 0 {
		return float64(rep.Failed) / float64(n)
	}
	return 0
}

// Failing reports whether the run's failures void its conclusions: no
// request succeeded, or more than MaxFailedShare failed; why says so.
func (rep *Report) Failing() (bool, string) {
	switch n := rep.Completed + rep.Failed + rep.Cancelled; {
	case rep.Completed == 0:
		return true, fmt.Sprintf("no request succeeded (%d failed, %d cancelled): nothing was measured", rep.Failed, rep.Cancelled)
	case failedShare(rep) > MaxFailedShare:
		top := rep.Reasons()[0]
		return true, fmt.Sprintf("%.1f%% of %d requests failed (more than %g%%; most: %s, %d): latency and throughput describe the survivors only",
			100*failedShare(rep), n, 100*MaxFailedShare, top, rep.FailedBy[top])
	}
	return false, ""
}

// saturated reports whether the server's metrics show it at its limit:
// requests waiting, the KV cache full, or preemptions.
func saturated(srv *serverwatch.ServerReport) bool {
	return srv != nil && srv.Available && ((srv.WaitingReported && srv.PeakWaiting >= 1) || (srv.KVReported && srv.PeakKVUsage >= kvFull) ||
		(srv.PreemptionsReported && srv.PreemptionsPer100 >= preemptPer100))
}

// clientHeldBack names the client-side bottleneck, if the client (its
// --max-concurrency cap, or a load generator behind its schedule) held
// the offered rate back and the server shows no saturation; otherwise
// it adds what the client did as a caveat.
func clientHeldBack(rep *Report, srv *serverwatch.ServerReport, add func(string, ...any)) (string, string) {
	if rep.Mode == "closed-loop" || rep.Lag.Count == 0 || math.IsInf(rep.Rate, 1) || rep.Rate <= 0 {
		return "", ""
	}
	sat := saturated(srv)
	gapMs := 1e3 / rep.Rate
	if share := float64(rep.SlotWaited) / float64(rep.Lag.Count); share >= capShare {
		add("%d of %d requests waited for one of --max-concurrency %d slots (send lag p99 %.1f ms; mean arrival gap %.1f ms)",
			rep.SlotWaited, rep.Lag.Count, rep.MaxConcurrency, rep.Lag.Value(99), gapMs)
		if !sat {
			return BottleneckCap, "the client's --max-concurrency cap held requests back: the offered rate was not delivered, and latency counts from the planned send time (raise the cap, or lower the rate)"
		}
		add("caveat: the server shows saturation too (waiting, KV cache or preemptions): the server's bottleneck is named")
	}
	g := rep.GenLag
	lagging := g.Count > 0 && g.Mean > max(clientLagGaps*gapMs, basisLagMs) &&
		rep.SendSpan > rep.PlannedSpan+time.Duration(gapMs*1e6)
	switch {
	case lagging && !sat:
		add("mean send lag %.1f ms (p99 %.1f ms) against a mean arrival gap of %.1f ms; sent over %.2f s where %.2f s were planned: the load generator could not keep up (CPU starved?)",
			g.Mean, g.Value(99), gapMs, rep.SendSpan.Seconds(), rep.PlannedSpan.Seconds())
		return BottleneckClient, "the load generator fell behind its schedule; the offered rate was not delivered"
	case lagging:
		add("caveat: mean send lag %.1f ms against a %.1f ms arrival gap while the server shows saturation; the server's bottleneck is named", g.Mean, gapMs)
	case g.Count > 0 && g.Value(99) > float64(clientLagP99)/1e6:
		add("caveat: p99 send lag behind the schedule %.1f ms; arrivals were late at times (a busy client machine)", g.Value(99))
	}
	return "", ""
}
