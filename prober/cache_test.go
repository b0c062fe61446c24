package prober

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// prefillMock serves a mock vLLM with a real prefix cache: prefill costs
// 100 µs per uncached prompt token on top of a fixed 5 ms, so a cold
// 1024-token prompt takes ~107 ms to its first token and a warm one ~7 ms.
// tokenizeCalls counts POST /tokenize.
type prefillMock struct {
	url           string
	mock          *mockvllm.Server
	tokenizeCalls atomic.Int64
}

func newPrefillMock(t *testing.T, edit func(*mockvllm.Options)) *prefillMock {
	t.Helper()
	o := mockvllm.DefaultOptions()
	o.Model = "m"
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	o.PrefixCacheBlocks, o.PrefillPerToken = 1<<16, 100*time.Microsecond
	if edit != nil {
		edit(&o)
	}
	p := &prefillMock{mock: mockvllm.New(o)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" {
			p.tokenizeCalls.Add(1)
		}
		p.mock.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.mock.Close(); srv.Close() })
	p.url = srv.URL
	return p
}

func prefillModule(name string, api config.API, cache config.CacheMode, tokens int) *config.Module {
	m := &config.Module{Name: name, API: api, MaxTokens: 2, IgnoreEOS: true, Cache: cache, PromptTokens: tokens}
	if api == config.APICompletions {
		m.Prompt = "Summarise the text above."
	} else {
		m.Messages = []config.Message{{Role: "system", Content: "You are terse."}, {Role: "user", Content: "Summarise the text above."}}
	}
	return m
}

// probeN runs n probes of m against url with one profile, as the scheduler does.
func probeN(t *testing.T, url string, backend config.Backend, m *config.Module, n int) []*Result {
	t.Helper()
	target := testTarget(url)
	target.Backend = backend
	client, err := NewClient(target, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	profile := NewPromptProfile()
	var out []*Result
	for i := range n {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		r := RunWithOptions(ctx, client, target, m, NewProbeID(), "test", RunOptions{Profile: profile})
		cancel()
		if !r.Success() {
			t.Fatalf("%s probe %d: %s: %v", m.Name, i, r.Reason, r.Err)
		}
		out = append(out, r)
	}
	return out
}

func TestCacheModesAgainstMockPrefixCache(t *testing.T) {
	p := newPrefillMock(t, nil)
	const n = 1024
	// Wide margins: the machine running the tests may be busy.
	const warmMax, coldFloor = 60 * time.Millisecond, 100 * time.Millisecond
	for _, c := range []struct {
		name    string
		backend config.Backend
		cache   config.CacheMode
	}{
		{"warm", backend.VLLM, config.CacheWarm},
		{"cold-salt", backend.VLLM, config.CacheCold},
		{"cold-prefix", backend.OpenAI, config.CacheCold},
		{"paired-salt", backend.VLLM, config.CachePaired},
		{"paired-prefix", backend.SGLang, config.CachePaired},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := prefillModule(c.name, config.APIChat, c.cache, n)
			rs := probeN(t, p.url, c.backend, m, 3)
			// Cached tokens are exact; a cold TTFT can never beat the
			// mock's prefill sleep. A warm TTFT only has an upper bound
			// on an idle machine, so the fastest of the warm ones is held
			// to it (the tests may share a busy machine).
			fastestWarm, bestSpeedup := time.Hour, 0.0
			for i, r := range rs {
				cold := c.cache != config.CacheWarm || i == 0
				if cold && (r.CachedTokens != 0 || r.TTFT < coldFloor) {
					t.Errorf("probe %d: cold, but %d tokens cached, TTFT %v", i, r.CachedTokens, r.TTFT)
				}
				if !cold {
					fastestWarm = min(fastestWarm, r.TTFT)
					if r.CachedTokens < n-32 {
						t.Errorf("probe %d: warm, but %d tokens cached", i, r.CachedTokens)
					}
				}
				w := r.Prefill.Warm
				if c.cache != config.CachePaired {
					if w != nil {
						t.Errorf("probe %d: a warm request in cache: %s", i, c.cache)
					}
					continue
				}
				if w == nil || w.CachedTokens < n-32 || w.PromptTokens != r.PromptTokens {
					t.Fatalf("probe %d: warm request of the pair %+v", i, w)
				}
				fastestWarm = min(fastestWarm, w.TTFT)
				bestSpeedup = max(bestSpeedup, r.TTFT.Seconds()/w.TTFT.Seconds())
			}
			if c.cache != config.CacheCold && fastestWarm > warmMax {
				t.Errorf("fastest warm TTFT %v, want at most %v", fastestWarm, warmMax)
			}
			if c.cache == config.CachePaired && bestSpeedup < 1.5 {
				t.Errorf("best speed-up %.1f, want > 1.5", bestSpeedup)
			}
			if salted := rs[0].Prefill.Salted; salted != (c.backend == backend.VLLM && c.cache != config.CacheWarm) {
				t.Errorf("salted = %v", salted)
			}
		})
	}
}

func TestPromptTokensExactWithTokenize(t *testing.T) {
	// 3 bytes a token: "government" is 4 tokens, so counting words is
	// not enough; only the server's tokenizer gives the length.
	p := newPrefillMock(t, func(o *mockvllm.Options) { o.CharsPerToken = 3 })
	for _, c := range []struct {
		backend config.Backend
		api     config.API
		cache   config.CacheMode
		n       int
	}{
		{backend.VLLM, config.APIChat, config.CacheWarm, 128},
		{backend.VLLM, config.APIChat, config.CacheCold, 2048},
		{backend.Auto, config.APIChat, config.CachePaired, 8192},
		{backend.VLLM, config.APICompletions, config.CacheWarm, 300},
		{backend.LlamaCPP, config.APICompletions, config.CacheCold, 2048},
	} {
		name := string(c.backend) + "-" + string(c.api) + "-" + string(c.cache)
		calls := p.tokenizeCalls.Load()
		rs := probeN(t, p.url, c.backend, prefillModule(name, c.api, c.cache, c.n), 2)
		for i, r := range rs {
			if r.PromptTokens != c.n || !r.Prefill.Tokenized {
				t.Errorf("%s probe %d: %d prompt tokens (tokenized %v), want exactly %d", name, i, r.PromptTokens, r.Prefill.Tokenized, c.n)
			}
		}
		if got := p.tokenizeCalls.Load() - calls; got < 2 || got > maxTokenizeCalls {
			t.Errorf("%s: %d tokenize calls, want 2..%d and none after the first probe", name, got, maxTokenizeCalls)
		}
	}
}

// Without /tokenize the first probe guesses one token per word; usage
// corrects it. On a tokenizer at 3 bytes a token (~1.6 tokens a filler
// word) the length is within 2 % (or 8 tokens) from the second probe and
// exact from the fourth.
func TestPromptTokensCalibratesFromUsage(t *testing.T) {
	p := newPrefillMock(t, func(o *mockvllm.Options) {
		o.CharsPerToken, o.NoTokenize, o.PrefillPerToken = 3, true, 2*time.Microsecond
	})
	for _, n := range []int{128, 2048, 8192} {
		for i, backend := range []config.Backend{backend.TGI, backend.VLLM, backend.OpenAI} {
			api := []config.API{config.APIChat, config.APIChat, config.APICompletions}[i]
			m := prefillModule("calib-"+string(backend), api, config.CacheCold, n)
			rs := probeN(t, p.url, backend, m, 6)
			if first := rs[0].PromptTokens; abs(first-n)*20 < n {
				t.Errorf("n=%d: the first probe is already within 5%% (%d): the test tokenizer is too close to one token a word", n, first)
			}
			for i, r := range rs[1:] {
				i++
				off := abs(r.PromptTokens - n)
				if (i >= 3 && off != 0) || (off > 8 && off*50 > n) {
					t.Errorf("n=%d %s probe %d: %d prompt tokens, want %d (within 2%% or 8 tokens from the 2nd probe, exact from the 4th)", n, backend, i, r.PromptTokens, n)
				}
				if r.Prefill.Tokenized {
					t.Errorf("tokenized without /tokenize")
				}
			}
		}
	}
	// The vllm and tgi targets (once per length) try /tokenize on their
	// first probes, then give up; openai never tries.
	if got, want := p.tokenizeCalls.Load(), int64(2*3*tokenizeAttempts); got != want {
		t.Errorf("%d tokenize calls to a server without /tokenize, want %d", got, want)
	}
}

func TestPromptTokensTooShortForTheModule(t *testing.T) {
	p := newPrefillMock(t, nil)
	m := prefillModule("short", config.APICompletions, config.CacheWarm, 16)
	m.Prompt = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen"
	target := testTarget(p.url)
	target.Backend = backend.VLLM
	client, _ := NewClient(target, time.Minute)
	defer client.CloseIdleConnections()
	profile := NewPromptProfile()
	for i := range 2 {
		r := RunWithOptions(t.Context(), client, target, m, "x", "test", RunOptions{Profile: profile})
		if r.Reason != ReasonOther || r.Err == nil || !strings.Contains(r.Err.Error(), "more than prompt_tokens 16") {
			t.Fatalf("probe %d: reason %q err %v, want other: the prompt alone is longer than prompt_tokens", i, r.Reason, r.Err)
		}
	}
}

func TestPrefillMetrics(t *testing.T) {
	p := newPrefillMock(t, nil)
	const n = 1024
	mets := NewMetrics(prometheus.NewRegistry())
	target := testTarget(p.url)
	target.Backend, target.Interval = backend.VLLM, modelDuration(time.Minute)
	paired := prefillModule("paired", config.APIChat, config.CachePaired, n)
	plain := chatModule()
	for _, m := range []*config.Module{paired, plain} {
		mets.InitSchedule(target, m)
	}
	rs := probeN(t, p.url, backend.VLLM, paired, 2)
	for _, r := range append(rs, probeN(t, p.url, backend.VLLM, plain, 1)...) {
		r.Target, r.Model = target.Name, target.Model
		mets.Record(r, time.Now())
	}
	last := rs[1]
	fams, err := mets.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	only := func(name string) *dto.Metric {
		t.Helper()
		f := byName[name]
		if f == nil || len(f.Metric) != 1 || moduleOf(f.Metric[0]) != "paired" {
			t.Fatalf("%s: want one series, of module paired: %v", name, f)
		}
		return f.Metric[0]
	}
	if got, want := only("llm_prober_prefill_cache_speedup_ratio").GetGauge().GetValue(), last.TTFT.Seconds()/last.Prefill.Warm.TTFT.Seconds(); got != want {
		t.Errorf("speed-up %g, want %g", got, want)
	}
	if got := only("llm_prober_prompt_length_tokens").GetGauge().GetValue(); got != n {
		t.Errorf("prompt length %g, want %d", got, n)
	}
	rate := only("llm_prober_prefill_tokens_per_second").GetHistogram()
	// Computed prompt tokens / TTFT of each cold request: at most 1024
	// tokens / (5 ms + 1024 × 100 µs) = 9,535 tokens/s.
	want := 0.0
	for _, r := range rs {
		want += float64(r.PromptTokens-r.CachedTokens) / r.TTFT.Seconds()
	}
	if got := rate.GetSampleSum(); rate.GetSampleCount() != 2 || math.Abs(got-want) > 1e-6*want || got/2 > 9535 {
		t.Errorf("prefill rate: %d samples, sum %g tokens/s, want 2 summing to %g", rate.GetSampleCount(), got, want)
	}
	pair := byName["llm_prober_paired_time_to_first_token_seconds"]
	if pair == nil || len(pair.Metric) != 2 {
		t.Fatalf("paired TTFT: %v", pair)
	}
	for _, s := range pair.Metric {
		cache, h := "", s.GetHistogram()
		for _, l := range s.Label {
			if l.GetName() == "cache" {
				cache = l.GetValue()
			}
		}
		want := 0.0
		for _, r := range rs {
			x := r
			if cache == "warm" {
				x = r.Prefill.Warm
			}
			want += x.TTFT.Seconds()
		}
		if h.GetSampleCount() != 2 || h.GetSampleSum() != want {
			t.Errorf("paired TTFT cache=%q: %d samples summing to %g, want 2 summing to %g", cache, h.GetSampleCount(), h.GetSampleSum(), want)
		}
	}
	// The module's own TTFT is the cold request's.
	for _, s := range byName["llm_prober_time_to_first_token_seconds"].Metric {
		if moduleOf(s) == "paired" && s.GetHistogram().GetSampleSum() < 0.1 {
			t.Errorf("module TTFT sum %g: not the cold requests'", s.GetHistogram().GetSampleSum())
		}
	}
}

func moduleOf(m *dto.Metric) string {
	for _, l := range m.Label {
		if l.GetName() == "module" {
			return l.GetValue()
		}
	}
	return ""
}

// The scheduler keeps each job's prompt sizing from probe to probe, so a
// target without /tokenize converges; a fresh sizing every probe would
// stay at the first guess.
func TestSchedulerKeepsPromptSizing(t *testing.T) {
	p := newPrefillMock(t, func(o *mockvllm.Options) {
		o.CharsPerToken, o.NoTokenize, o.PrefillPerToken = 3, true, time.Microsecond
	})
	const n = 1000
	results := make(chan *Result, 64)
	s := NewScheduler(log.NewNopLogger(), NewMetrics(prometheus.NewRegistry()), "test", func(r *Result) {
		select {
		case results <- r:
		default:
		}
	})
	t.Cleanup(func() { s.Stop(5 * time.Second) })
	s.Apply(&config.Config{
		Global:  config.Global{MaxConcurrentProbes: 4},
		Modules: map[string]*config.Module{"long": prefillModule("long", config.APIChat, config.CacheCold, n)},
		Targets: []*config.Target{{Name: "t", URL: p.url, Model: "m", Backend: backend.TGI, Modules: []string{"long"},
			Interval: modelDuration(40 * time.Millisecond), Timeout: modelDuration(2 * time.Second)}},
	})
	var got []int
	for len(got) < 5 {
		select {
		case r := <-results:
			if !r.Success() {
				t.Fatalf("probe failed: %s %v", r.Reason, r.Err)
			}
			got = append(got, r.PromptTokens)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d probes: %v", len(got), got)
		}
	}
	if got[0] == n || got[4] != n {
		t.Errorf("prompt tokens of the first five scheduled probes %v: want a first guess off %d and the fifth exact", got, n)
	}
}

// A chat template the server adds: vLLM's /tokenize of messages counts it
// (exact from the first probe); llama.cpp's of content does not, so the
// first probe is the template's tokens over, and usage corrects it.
func TestPromptTokensChatTemplate(t *testing.T) {
	p := newPrefillMock(t, func(o *mockvllm.Options) {
		o.CharsPerToken, o.ChatTemplateTokens, o.PrefillPerToken = 3, 7, time.Microsecond
	})
	const n = 2048
	for _, be := range []config.Backend{backend.VLLM, backend.LlamaCPP} {
		rs := probeN(t, p.url, be, prefillModule("tmpl-"+string(be), config.APIChat, config.CacheCold, n), 5)
		var got []int
		for _, r := range rs {
			got = append(got, r.PromptTokens)
		}
		t.Logf("%s: prompt tokens of the first probes %v", be, got)
		switch be {
		case backend.VLLM:
			if got[0] != n || got[4] != n {
				t.Errorf("vllm: prompt tokens %v, want %d from the first probe", got, n)
			}
		case backend.LlamaCPP:
			if got[0] != n+7 || got[2] != n || got[4] != n {
				t.Errorf("llamacpp: prompt tokens %v, want %d (+7 template tokens) at first, exact from the third", got, n)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
