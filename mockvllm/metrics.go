package mockvllm

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// vLLM's default bucket bounds (vllm/v1/metrics/loggers.py).
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	latencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
		30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
	iterationBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
)

// finishReasons are pre-created like vLLM does at start-up.
var finishReasons = []string{"stop", "length", "abort", "error"}

// buckets125 is vLLM's build_1_2_5_buckets: 1,2,5,10,... up to max.
func buckets125(maxV int) []float64 {
	var b []float64
	for m := 1; ; m *= 10 {
		for _, k := range []int{1, 2, 5} {
			if k*m > maxV {
				return b
			}
			b = append(b, float64(k*m))
		}
	}
}

// gaugeSource reads the engine's instantaneous state for the gauges.
type gaugeSource interface {
	Stats() Stats
}

// metrics holds the vllm:* families, registered on a private registry.
type metrics struct {
	reg *prometheus.Registry

	preemptions, promptTokens, genTokens prometheus.Counter
	prefixQueries, prefixHits            prometheus.Counter
	success                              *prometheus.CounterVec

	specDrafts, specDraftTokens, specAccepted prometheus.Counter
	specPerPos                                []prometheus.Counter

	ttft, itl, tpot                    prometheus.Histogram
	e2e, queue, prefill, decode, infer prometheus.Histogram
	promptHist, genHist                prometheus.Histogram
}

func newMetrics(o *Options, src gaugeSource) *metrics {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"model_name": o.Model, "engine": "0"}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
		reg.MustRegister(c)
		return c
	}
	hist := func(name, help string, b []float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b, ConstLabels: labels})
		reg.MustRegister(h)
		return h
	}
	gauge := func(name, help string, f func(Stats) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return f(src.Stats()) }))
	}

	m := &metrics{reg: reg}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
		func(s Stats) float64 { return float64(s.Running) })
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
		func(s Stats) float64 { return float64(s.Waiting) })
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
		func(s Stats) float64 { return s.KVUsage() })

	gaugeVec("vllm:num_requests_waiting_by_reason", "Number of waiting requests by reason.", "reason", reg, labels,
		map[string]func() float64{
			// The mock waits only for capacity (no LoRA budget, no KV transfer).
			"capacity": func() float64 { return float64(src.Stats().Waiting) },
			"deferred": func() float64 { return 0 },
		})
	gaugeVec("vllm:engine_sleep_state", "Engine sleep state; awake = 0 means engine is sleeping.", "sleep_state", reg, labels,
		map[string]func() float64{
			"awake":             func() float64 { return 1 },
			"weights_offloaded": func() float64 { return 0 },
			"discard_all":       func() float64 { return 0 },
		})

	m.preemptions = counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.")
	// The mock steps each request on its own: one "engine step" is one
	// request's prefill (prompt tokens) or one decode step (its tokens).
	steps := hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", iterationBuckets)
	m.promptTokens = stepCounter{counter("vllm:prompt_tokens_total", "Number of prefill tokens processed."), steps}
	m.genTokens = stepCounter{counter("vllm:generation_tokens_total", "Number of generation tokens processed."), steps}
	m.prefixQueries = counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.")
	m.prefixHits = counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.")
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total",
		Help: "Count of successfully processed requests.", ConstLabels: labels}, []string{"finished_reason"})
	reg.MustRegister(m.success)
	for _, r := range finishReasons {
		m.success.WithLabelValues(r)
	}

	if sd := o.SpecDecode; sd != nil {
		m.specDrafts = counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.")
		m.specDraftTokens = counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.")
		m.specAccepted = counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.")
		pos := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:spec_decode_num_accepted_tokens_per_pos_total",
			Help: "Accepted tokens per draft position.", ConstLabels: labels}, []string{"position"})
		reg.MustRegister(pos)
		for i := range sd.NumSpeculativeTokens {
			m.specPerPos = append(m.specPerPos, pos.WithLabelValues(strconv.Itoa(i)))
		}
	}

	m.ttft = hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftBuckets)
	m.itl = hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets)
	m.tpot = hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", itlBuckets)
	m.e2e = hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", latencyBuckets)
	m.queue = hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", latencyBuckets)
	m.infer = hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", latencyBuckets)
	m.prefill = hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", latencyBuckets)
	m.decode = hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", latencyBuckets)
	m.promptHist = hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", buckets125(o.MaxModelLen))
	m.genHist = hist("vllm:request_generation_tokens", "Number of generation tokens processed.", buckets125(o.MaxModelLen))

	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vllm:cache_config_info",
		Help: "Information of the LLMEngine CacheConfig",
		ConstLabels: prometheus.Labels{
			"engine":                "0",
			"block_size":            strconv.Itoa(o.BlockSize),
			"num_gpu_blocks":        strconv.Itoa(max(o.KVBlocks, 0)),
			"enable_prefix_caching": pyBool(o.PrefixCacheHitRate > 0 || o.PrefixCacheBlocks > 0),
		}})
	info.Set(1)
	reg.MustRegister(info)

	// As vLLM with --enable-lora exports it (no model_name or engine); the
	// mock serves no adapters, so both lists stay empty.
	lora := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vllm:lora_requests_info",
		Help:        "Running stats on lora requests.",
		ConstLabels: prometheus.Labels{"max_lora": "0", "running_lora_adapters": "", "waiting_lora_adapters": ""}})
	lora.SetToCurrentTime()
	reg.MustRegister(lora)
	// A single vLLM API server also serves process_* from its registry.
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// gaugeVec registers a gauge with one label whose values read fs.
func gaugeVec(name, help, label string, reg *prometheus.Registry, labels prometheus.Labels, fs map[string]func() float64) {
	for v, f := range fs {
		l := prometheus.Labels{label: v}
		for k, x := range labels {
			l[k] = x
		}
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: l}, f))
	}
}

// stepCounter counts tokens and observes each addition as one engine step.
type stepCounter struct {
	prometheus.Counter
	steps prometheus.Histogram
}

func (c stepCounter) Add(v float64) {
	c.Counter.Add(v)
	c.steps.Observe(v)
}

// pyBool spells booleans the way vLLM's Python labels do.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
