package prober

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

type scheduleKey struct{ target, model, module string }

func (a scheduleKey) compare(b scheduleKey) int {
	return cmp.Or(strings.Compare(a.target, b.target), strings.Compare(a.module, b.module), strings.Compare(a.model, b.model))
}

// The histograms of a schedule, in histSpecs order.
const (
	histHeaders = iota
	histTTFT
	histTPOT
	histITL
	histE2EL
	histMaxITL
	numHists
)

// exemplarLabels: every latency exemplar carries the probe's id and the
// trace id it sent, so a click opens the server's trace of that request.
const exemplarLabels = "probe_id,trace_id"

var histSpecs = [numHists]*exposition.HistogramSpec{
	histHeaders: newSpec(HeadersBuckets),
	histTTFT:    newSpec(TTFTBuckets),
	histTPOT:    newSpec(ITLBuckets),
	histITL:     newSpec(ITLBuckets),
	histE2EL:    newSpec(E2EBuckets),
	histMaxITL:  newSpec(MaxITLBuckets),
}

func newSpec(bounds []float64) *exposition.HistogramSpec {
	return exposition.NewHistogramSpec(bounds, nativeSchema, nativeMaxBuckets, nativeMinReset, exemplarLabels)
}

// schedule is the metric state of one (target, module): a few hundred
// bytes of numbers plus its histograms, which exist from their first
// observation on.
type schedule struct {
	key     scheduleKey
	labels  exposition.LabelSet
	created int64 // Unix ns, the counters' created timestamp

	mu                                          sync.Mutex
	probes, good, outputTokens, promptTokens    float64
	cachedTokens, interval                      float64
	failures                                    []float64  // by Reasons
	sloViolations, slo                          []float64  // by SLONames; slo 0 = not set
	validation                                  []float64  // by Validators
	skipped                                     [2]float64 // overlap, concurrency
	warmup                                      [3]float64 // by WarmupOutcomes (metrics_warmup.go)
	warmupUntil                                 time.Time  // the open warm-up's end (Result.WarmupUntil)
	probed, succeeded                           bool
	lastSuccess, lastProbeTime, lastSuccessTime float64
	hists                                       [numHists]*exposition.Histogram
	prefill                                     *prefillState // cache modes, prompt_tokens (metrics_prefill.go)
}

func newSchedule(k scheduleKey, now time.Time) *schedule {
	return &schedule{
		key: k, created: now.UnixNano(),
		labels: exposition.NewLabelSet(exposition.NewLabel("target", k.target),
			exposition.NewLabel("model", k.model), exposition.NewLabel("module", k.module)),
		failures:      make([]float64, len(Reasons)),
		sloViolations: make([]float64, len(SLONames)),
		slo:           make([]float64, len(SLONames)),
		validation:    make([]float64, len(Validators)),
	}
}

func (s *schedule) configure(interval time.Duration, slos map[string]time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interval = interval.Seconds()
	for i, name := range SLONames {
		s.slo[i] = max(slos[name], 0).Seconds()
	}
}

func (s *schedule) record(r *Result, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := float64(end.UnixNano()) / 1e9
	s.recordWarmup(r) // counted there too, never instead (warmup.go)
	s.probes++
	s.probed, s.lastProbeTime = true, ts
	for _, v := range r.ValidationFailures {
		if i := slices.Index(Validators, v); i >= 0 {
			s.validation[i]++
		}
	}
	if !r.Success() {
		i := slices.Index(Reasons, r.Reason)
		if i < 0 {
			i = slices.Index(Reasons, ReasonOther)
		}
		s.failures[i]++
		s.lastSuccess = 0
		if !r.Start.IsZero() {
			for _, name := range timeoutViolations(r, end.Sub(r.Start), s.slo) {
				s.sloViolations[slices.Index(SLONames, name)]++
			}
		}
		return
	}
	s.succeeded, s.lastSuccess, s.lastSuccessTime = true, 1, ts
	s.outputTokens += float64(r.OutputTokens)
	s.promptTokens += float64(r.PromptTokens)
	s.cachedTokens += float64(r.CachedTokens)
	if r.Warmup != "" {
		// Warm-up waives its latencies, and so its SLOs: good.
		s.good++
		return
	}
	ex := exemplarOf(r)
	s.observe(histHeaders, r.Headers, ex, end)
	s.observe(histTTFT, r.TTFT, ex, end)
	s.observe(histE2EL, r.E2EL, ex, end)
	if r.OutputTokens > 1 {
		s.observe(histTPOT, r.TPOT, ex, end)
	}
	if r.ContentChunks > 1 {
		s.observe(histMaxITL, r.MaxITL, ex, end)
	}
	itl := s.hist(histITL, end)
	for _, d := range r.ITL {
		itl.Observe(d.Seconds(), "", end)
	}
	for _, name := range r.SLOViolations {
		if i := slices.Index(SLONames, name); i >= 0 {
			s.sloViolations[i]++
		}
	}
	if r.Good {
		s.good++
	}
	s.recordPrefill(r, end)
}

func (s *schedule) hist(i int, now time.Time) *exposition.Histogram {
	if s.hists[i] == nil {
		s.hists[i] = exposition.NewHistogram(histSpecs[i], now)
	}
	return s.hists[i]
}

func (s *schedule) observe(i int, d time.Duration, id string, now time.Time) {
	s.hist(i, now).Observe(d.Seconds(), id, now)
}

func (s *schedule) skip(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch reason {
	case SkipOverlap:
		s.skipped[0]++
	case SkipConcurrency:
		s.skipped[1]++
	}
}
