package serverwatch

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
)

// Normalised server signal names (collector.Signals keys).
const (
	sigKVUsage       = "llm_prober_server_kv_cache_usage_ratio"
	sigRunning       = "llm_prober_server_requests_running"
	sigWaiting       = "llm_prober_server_requests_waiting"
	sigPreemptions   = "llm_prober_server_preemptions_total"
	sigPrefixQueries = "llm_prober_server_prefix_cache_queries_total"
	sigPrefixHits    = "llm_prober_server_prefix_cache_hits_total"
	sigPrefixRatio   = "llm_prober_server_prefix_cache_hit_ratio"
	sigSpecDrafts    = "llm_prober_server_spec_decode_drafts_total"
	sigSpecDraftTok  = "llm_prober_server_spec_decode_draft_tokens_total"
	sigSpecAccepted  = "llm_prober_server_spec_decode_accepted_tokens_total"
	sigQueueSum      = "llm_prober_server_request_queue_time_seconds_sum"
	sigQueueCount    = "llm_prober_server_request_queue_time_seconds_count"
	sigGenTokens     = "llm_prober_server_generation_tokens_total"
	sigTTFTSum       = "llm_prober_server_time_to_first_token_seconds_sum"
	sigTTFTCount     = "llm_prober_server_time_to_first_token_seconds_count"
)

// ServerReport is what the server's own metrics said over a run: gauges
// at their peak, counters as the increase from before to after.
type ServerReport struct {
	Available bool   `json:"available"`
	Err       string `json:"error,omitempty"` // why not, or the last scrape error
	Backend   string `json:"backend"`
	Scrapes   int    `json:"scrapes"`

	PeakKVUsage float64 `json:"peak_kv_cache_usage"` // 0..1
	PeakRunning float64 `json:"peak_running"`
	PeakWaiting float64 `json:"peak_waiting"`
	MeanWaiting float64 `json:"mean_waiting"`
	// Which of the gauges above the server exports at all (llama.cpp has
	// no KV-cache gauge): one it does not is "not reported by the
	// server", never 0 % nor evidence.
	KVReported      bool `json:"kv_cache_usage_reported"`
	RunningReported bool `json:"running_reported"`
	WaitingReported bool `json:"waiting_reported"`

	Preemptions         float64 `json:"preemptions"`
	PreemptionsReported bool    `json:"preemptions_reported"`
	// PreemptionsPer100 is per 100 requests sent, warm-up included (set by Attach).
	PreemptionsPer100 float64 `json:"preemptions_per_100_requests"`

	PrefixHitRate    float64 `json:"prefix_cache_hit_rate"`       // hits/queries over the run, or the gauge; -1 unknown
	SpecAcceptance   float64 `json:"spec_decode_acceptance"`      // accepted/draft tokens over the run; -1 unknown
	SpecMeanAccepted float64 `json:"spec_decode_tokens_per_step"` // 1 + accepted/drafts: tokens per step

	MeanQueueTime time.Duration `json:"mean_queue_time_ns"` // server-side, over the run; -1 unknown
	// QueueCount is how many requests the server recorded a queue time
	// for: some servers (the vLLM simulator) record only those that
	// waited, so their mean is over those (AttachServer rescales it).
	QueueCount float64 `json:"queue_time_count"`
	// MeanTTFT is the server's own mean time to first token over the run
	// (its histogram's sum over count); -1 unknown.
	MeanTTFT        time.Duration `json:"mean_ttft_ns"`
	GeneratedTokens float64       `json:"generated_tokens"`

	// Series is the scrapes over the run, at most MaxServerSamples (the
	// HTML report draws it; the JSON keeps the summary above).
	Series []ServerSample `json:"-"`
}

// Watcher scrapes a target's /metrics before, during and after a run,
// through the collector's normalisation, so every backend it maps works.
type Watcher struct {
	client   *http.Client
	target   *config.Target
	interval time.Duration

	cancel context.CancelFunc
	done   chan struct{}

	mu           sync.Mutex
	before, last *collector.Signals
	first        *collector.Signals // the first scrape that answered
	rep          ServerReport
	waitSum      float64
	lastErr      string
	series       ServerSeries
}

// Watch takes the "before" scrape now, then scrapes every interval until
// Stop. A target without usable metrics gives a report with Available false.
func Watch(ctx context.Context, client *http.Client, t *config.Target, interval time.Duration) *Watcher {
	if interval <= 0 {
		interval = time.Second
	}
	w := &Watcher{client: client, target: t, interval: interval, done: make(chan struct{})}
	w.before = w.scrape(ctx)
	ctx, w.cancel = context.WithCancel(ctx)
	go w.loop(ctx)
	return w
}

func (w *Watcher) loop(ctx context.Context) {
	defer close(w.done)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.scrape(ctx)
		}
	}
}

// scrape takes one sample and folds its gauges into the peaks.
func (w *Watcher) scrape(ctx context.Context) *collector.Signals {
	ctx, cancel := context.WithTimeout(ctx, max(w.interval, 5*time.Second))
	defer cancel()
	s, err := collector.ScrapeSignals(ctx, w.client, w.target)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			w.lastErr = err.Error()
		}
		return nil
	}
	w.last = s
	if w.first == nil {
		w.first = s
	}
	w.rep.Scrapes++
	w.rep.Backend = s.Backend
	v := s.Values
	_, kv := v[sigKVUsage]
	_, running := v[sigRunning]
	_, waiting := v[sigWaiting]
	w.rep.KVReported = w.rep.KVReported || kv
	w.rep.RunningReported = w.rep.RunningReported || running
	w.rep.WaitingReported = w.rep.WaitingReported || waiting
	w.rep.PeakKVUsage = max(w.rep.PeakKVUsage, v[sigKVUsage])
	w.rep.PeakRunning = max(w.rep.PeakRunning, v[sigRunning])
	w.rep.PeakWaiting = max(w.rep.PeakWaiting, v[sigWaiting])
	w.waitSum += v[sigWaiting]
	w.series.Add(ServerSample{At: time.Now(), KVUsage: v[sigKVUsage], Running: v[sigRunning], Waiting: v[sigWaiting], Preemptions: v[sigPreemptions]})
	return s
}

// Stop takes the "after" scrape and returns the report.
func (w *Watcher) Stop(ctx context.Context) ServerReport {
	w.cancel()
	<-w.done
	after := w.scrape(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	rep := w.rep
	rep.Err = w.lastErr
	rep.Series = w.series.Samples
	if after == nil {
		after = w.last // the last scrape that answered
	}
	if w.first == nil || after == nil || after == w.first {
		if rep.Err == "" {
			rep.Err = "no metrics"
		}
		return rep
	}
	rep.Available = true
	rep.MeanWaiting = w.waitSum / float64(max(rep.Scrapes, 1))
	b, a := w.first.Values, after.Values
	// A counter first seen after the baseline was born during the run: a
	// new series starts at 0 (vLLM creates some on first use), so its
	// whole value counts instead of the signal going unreported.
	delta := func(k string) (float64, bool) {
		av, ok := a[k]
		return max(av-b[k], 0), ok
	}
	rep.Preemptions, rep.PreemptionsReported = delta(sigPreemptions)
	rep.GeneratedTokens, _ = delta(sigGenTokens)
	rep.PrefixHitRate, rep.SpecAcceptance, rep.MeanQueueTime, rep.MeanTTFT = -1, -1, -1, -1
	hits, ok1 := delta(sigPrefixHits)
	queries, ok2 := delta(sigPrefixQueries)
	switch {
	case ok1 && ok2 && queries > 0:
		rep.PrefixHitRate = hits / queries
	case a[sigPrefixRatio] > 0:
		rep.PrefixHitRate = a[sigPrefixRatio]
	}
	acc, ok1 := delta(sigSpecAccepted)
	draft, ok2 := delta(sigSpecDraftTok)
	if ok1 && ok2 && draft > 0 {
		rep.SpecAcceptance = acc / draft
		if drafts, ok := delta(sigSpecDrafts); ok && drafts > 0 {
			rep.SpecMeanAccepted = 1 + acc/drafts
		}
	}
	qs, ok1 := delta(sigQueueSum)
	qc, ok2 := delta(sigQueueCount)
	if ok1 && ok2 && qc > 0 {
		rep.MeanQueueTime, rep.QueueCount = time.Duration(qs/qc*float64(time.Second)), qc
	}
	ts, ok1 := delta(sigTTFTSum)
	tc, ok2 := delta(sigTTFTCount)
	if ok1 && ok2 && tc > 0 {
		rep.MeanTTFT = time.Duration(ts / tc * float64(time.Second))
	}
	return rep
}
