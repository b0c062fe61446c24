package summary

import "github.com/llm-prober/llm-prober/loadtest/serverwatch"

// lost says where bench's TTFT went when the server's own is far below it.
type lost int

const (
	lostNone     lost = iota // the server's TTFT accounts for bench's, or is not exported
	lostClient               // the client sent late and the server did not queue
	lostConflict             // neither the client's lag nor the server's queue explains it
)

const (
	// The server's own mean TTFT below this share of bench's (from the
	// send), and this many ms below it, is time lost outside its engine.
	serverTTFTShare = 0.5
	serverTTFTGapMs = 20.0
	// A mean send lag of at least this share of bench's mean TTFT is the
	// client's (with p99 above clientLagP99).
	lagTTFTShare = 0.1
	// A server mean queue time within this share of bench's TTFT (or 2 ms)
	// is no queue.
	queueTTFTShare = 0.05
)

// lostBeforeServer compares bench's TTFT with the server's own: far
// above it, with the client sending late and the server not queueing,
// the client was the bottleneck (a burst it could not send at once);
// far above it otherwise, the evidence conflicts. It adds why.
func lostBeforeServer(rep *Report, srv *serverwatch.ServerReport, add func(string, ...any)) lost {
	if srv.MeanTTFT <= 0 || rep.TTFT.Count == 0 {
		return lostNone
	}
	bench, own := rep.TTFT.Mean, float64(srv.MeanTTFT)/1e6
	if own >= serverTTFTShare*bench || bench-own <= serverTTFTGapMs {
		return lostNone
	}
	g := rep.GenLag
	lagLarge := rep.Mode != "closed-loop" && g.Count > 0 && g.Value(99) > float64(clientLagP99)/1e6 && g.Mean >= lagTTFTShare*bench
	queue := float64(srv.MeanQueueTime) / 1e6
	var queueZero bool
	switch {
	case srv.MeanQueueTime >= 0:
		queueZero = queue <= max(2, queueTTFTShare*bench)
	case srv.WaitingReported:
		queueZero = srv.PeakWaiting < 1
	}
	switch {
	case lagLarge && queueZero:
		add("bench's mean TTFT %.1f ms is %.0f× the server's own %.1f ms, the server did not queue, and the client sent late (send lag mean %.1f ms, p99 %.1f ms): the time was lost in the client",
			bench, bench/own, own, g.Mean, g.Value(99))
		return lostClient
	case lagLarge:
		add("conflicting: the client sent late (send lag mean %.1f ms) and the server queued (mean %.1f ms, peak %.0f waiting) while its own TTFT (%.1f ms) is far below bench's (%.1f ms)",
			g.Mean, queue, srv.PeakWaiting, own, bench)
	default:
		add("conflicting: bench's mean TTFT %.1f ms is far above the server's own %.1f ms, and the client's send lag (mean %.1f ms, p99 %.1f ms) does not account for it",
			bench, own, g.Mean, g.Value(99))
	}
	return lostConflict
}
