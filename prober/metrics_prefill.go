package prober

import (
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/exposition"
)

// PrefillRateBuckets bound llm_prober_prefill_tokens_per_second: from a
// CPU server's hundreds of prompt tokens a second to a GPU's millions.
var PrefillRateBuckets = []float64{100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1e6, 2.5e6}

var (
	prefillRateSpec = exposition.NewHistogramSpec(PrefillRateBuckets, nativeSchema, nativeMaxBuckets, nativeMinReset, "probe_id")
	pairTTFTSpec    = exposition.NewHistogramSpec(TTFTBuckets, nativeSchema, nativeMaxBuckets, nativeMinReset, "probe_id")
)

// prefillState is the metric state of a module with cache cold or paired
// or with prompt_tokens; a schedule without either has none, and writes
// none of these series.
type prefillState struct {
	promptTokens float64 // prompt_tokens; 0 if unset
	pairLabels   [2]exposition.LabelSet
	pairTTFT     [2]*exposition.Histogram // cache="cold", cache="warm"; nil until a pair completes
	speedup      float64
	hasSpeedup   bool
	rate         *exposition.Histogram // nil until observed
}

// configurePrefill sets up (or drops) a schedule's prefill state.
func (m *Metrics) configurePrefill(t *config.Target, mod *config.Module) {
	s := m.get(t.Name, t.Model, mod.Name)
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if mod.PromptTokens == 0 && !mod.Cold() {
		s.prefill = nil
		return
	}
	if s.prefill == nil {
		s.prefill = &prefillState{}
		for i, c := range []config.CacheMode{config.CacheCold, config.CacheWarm} {
			s.prefill.pairLabels[i] = exposition.NewLabelSet(append(append([]exposition.Label(nil), s.labels...),
				exposition.NewLabel("cache", string(c)))...)
		}
	}
	s.prefill.promptTokens = float64(mod.PromptTokens)
}

// recordPrefill adds a successful probe's pair TTFTs, speed-up and
// prefill rate. Called with s.mu held.
func (s *schedule) recordPrefill(r *Result, end time.Time) {
	p, pr := s.prefill, r.Prefill
	if p == nil || pr == nil || pr.Cache == config.CacheWarm {
		return
	}
	if w := pr.Warm; w != nil && w.Success() {
		for i, x := range []*Result{r, w} {
			if p.pairTTFT[i] == nil {
				p.pairTTFT[i] = exposition.NewHistogram(pairTTFTSpec, end)
			}
			// Both carry the pair's probe id, which /logs resolves.
			p.pairTTFT[i].Observe(x.TTFT.Seconds(), r.ID, end)
		}
		if w.TTFT > 0 {
			p.speedup, p.hasSpeedup = r.TTFT.Seconds()/w.TTFT.Seconds(), true
		}
	}
	// Prefill throughput: the tokens the server computed (not served from
	// its cache) over TTFT, for sized cold prompts only.
	if p.promptTokens == 0 || r.TTFT <= 0 {
		return
	}
	tokens := float64(r.PromptTokens - r.CachedTokens)
	if r.PromptTokens == 0 {
		tokens = p.promptTokens
	}
	if tokens > 0 {
		if p.rate == nil {
			p.rate = exposition.NewHistogram(prefillRateSpec, end)
		}
		p.rate.Observe(tokens/r.TTFT.Seconds(), r.ID, end)
	}
}

// The prefill families, in families' (sorted) order.
var (
	familyPairedTTFT = family{"llm_prober_paired_time_to_first_token_seconds",
		"TTFT of the cold and the warm request of each successful cache: paired probe, by cache.", dto.MetricType_HISTOGRAM,
		func(w *exposition.Writer, s *schedule) {
			if p := s.prefill; p != nil {
				for i, h := range p.pairTTFT {
					if h != nil {
						w.Histogram(p.pairLabels[i], h)
					}
				}
			}
		}}
	familyCacheSpeedup = family{"llm_prober_prefill_cache_speedup_ratio",
		"Cold TTFT / warm TTFT of the last successful cache: paired probe: how much the prefix cache speeds up prefill.", dto.MetricType_GAUGE,
		func(w *exposition.Writer, s *schedule) {
			if p := s.prefill; p != nil && p.hasSpeedup {
				w.Gauge(s.labels, nil, p.speedup)
			}
		}}
	familyPrefillRate = family{"llm_prober_prefill_tokens_per_second",
		"Prompt tokens computed (not served from the prefix cache) / TTFT, per successful cold or paired probe of a module with prompt_tokens.", dto.MetricType_HISTOGRAM,
		func(w *exposition.Writer, s *schedule) {
			if p := s.prefill; p != nil && p.rate != nil {
				w.Histogram(s.labels, p.rate)
			}
		}}
	familyPromptLength = family{"llm_prober_prompt_length_tokens",
		"Configured prompt length (prompt_tokens) of a module; absent when not set.", dto.MetricType_GAUGE,
		func(w *exposition.Writer, s *schedule) {
			if p := s.prefill; p != nil && p.promptTokens > 0 {
				w.Gauge(s.labels, nil, p.promptTokens)
			}
		}}
)
