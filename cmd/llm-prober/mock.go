package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// mockHelp is the mock's command help: every timing term is a flag, so
// anyone can compute what a benchmark should measure and check it against
// GET /trace.
const mockHelp = `Run only the mock vLLM server (for trying the prober, demos and tests).

Timing model (every term a flag; jitters are uniform, ± around the mean):
  queue time   a request waits, first in first out, while --max-running requests run
               (and while the KV cache lacks blocks for it);
  TTFT         queue time + --ttft (± --ttft-jitter) + --prefill-per-token × the prompt
               tokens not served from the prefix cache;
  decode step  --itl (± --itl-jitter) + --batch-slowdown × (running requests − 1), or, with
               --per-sequence > 0, --itl + --per-sequence × running requests (saturates);
               each step writes --tokens-per-chunk tokens (the first step one);
  preemption   a running request holds ceil((prompt + generated) / --block-size) of
               --kv-blocks; when they run out the newest is preempted and pays its
               prefill again;
  stall        every --stall-every-th generation request waits at least --stall-for
               between the chunk carrying output token --stall-after-tokens and the
               next one (a mid-answer freeze: TPOT barely moves, max_itl does).
Prefix cache: --prefix-cache-blocks > 0 hashes prompts as vLLM does (cache_salt honoured;
POST /reset_prefix_cache empties it), else --prefix-cache-hit-rate of every prompt is
cached. GET /trace?id=X-Request-Id gives a finished request's true write times (Unix ns),
queue time, TTFT and inter-token gaps, to check a benchmark against.`

type mockFlags struct {
	listen          string
	opts            mockvllm.Options
	ttftJitter      time.Duration
	itlJitter       time.Duration
	specTokens      int
	specAcceptance  float64
	faults          string
	ttft, itl       time.Duration
	headersAtFirst  bool
	finishOnLastChk bool
}

func (m *mockFlags) register(cmd *kingpin.CmdClause) {
	d := mockvllm.DefaultOptions()
	m.opts = d
	cmd.Flag("listen-address", "Address to serve on.").Default("127.0.0.1:8000").StringVar(&m.listen)
	cmd.Flag("model", "Served model name.").Default(d.Model).StringVar(&m.opts.Model)
	cmd.Flag("ttft", "Mean prefill time before the first token.").Default(d.TTFT.Mean.String()).DurationVar(&m.ttft)
	cmd.Flag("ttft-jitter", "Uniform jitter around --ttft.").Default(d.TTFT.Jitter.String()).DurationVar(&m.ttftJitter)
	cmd.Flag("itl", "Mean gap between decode steps.").Default(d.ITL.Mean.String()).DurationVar(&m.itl)
	cmd.Flag("itl-jitter", "Uniform jitter around --itl.").Default(d.ITL.Jitter.String()).DurationVar(&m.itlJitter)
	cmd.Flag("batch-slowdown", "Decode step time added per other running request (step = --itl + this × (running − 1)); ignored with --per-sequence.").Default(d.BatchSlowdown.String()).DurationVar(&m.opts.BatchSlowdown)
	cmd.Flag("per-sequence", "Decode step time per running request, this one included (step = --itl + this × running, replacing --batch-slowdown): throughput saturates past a knee.").Default(d.PerSequence.String()).DurationVar(&m.opts.PerSequence)
	cmd.Flag("prefill-per-token", "Prefill time per prompt token not served from the prefix cache, added to --ttft.").Default(d.PrefillPerToken.String()).DurationVar(&m.opts.PrefillPerToken)
	cmd.Flag("tokens-per-chunk", "Tokens per decode step.").Default(strconv.Itoa(d.TokensPerChunk)).IntVar(&m.opts.TokensPerChunk)
	cmd.Flag("max-running", "Running-request limit (vLLM max_num_seqs); the rest wait.").Default(strconv.Itoa(d.MaxRunning)).IntVar(&m.opts.MaxRunning)
	cmd.Flag("kv-blocks", "KV-cache budget in blocks; exhausting it preempts requests.").Default(strconv.Itoa(d.KVBlocks)).IntVar(&m.opts.KVBlocks)
	cmd.Flag("block-size", "Tokens per KV block.").Default(strconv.Itoa(d.BlockSize)).IntVar(&m.opts.BlockSize)
	cmd.Flag("prefix-cache-hit-rate", "Fraction of every prompt served from the prefix cache (ignored with --prefix-cache-blocks).").Default(fmt.Sprint(d.PrefixCacheHitRate)).Float64Var(&m.opts.PrefixCacheHitRate)
	cmd.Flag("prefix-cache-blocks", "Simulate vLLM's prefix cache of this many blocks instead of --prefix-cache-hit-rate: prompts hashed in --block-size blocks (salted by cache_salt), the longest cached run of leading blocks served, LRU eviction; POST /reset_prefix_cache empties it.").Default(strconv.Itoa(d.PrefixCacheBlocks)).IntVar(&m.opts.PrefixCacheBlocks)
	cmd.Flag("trace-capacity", "Finished requests whose traces GET /trace keeps.").Default(strconv.Itoa(d.TraceCapacity)).IntVar(&m.opts.TraceCapacity)
	cmd.Flag("seed", "Seed of the jitter, faults and speculative acceptance.").Default(strconv.FormatInt(d.Seed, 10)).Int64Var(&m.opts.Seed)
	cmd.Flag("spec-tokens", "Speculative tokens per step (0 disables speculative decoding).").Default("0").IntVar(&m.specTokens)
	cmd.Flag("spec-acceptance", "Per-position draft acceptance probability.").Default("0.7").Float64Var(&m.specAcceptance)
	cmd.Flag("faults", "Per-request fault probabilities, e.g. rate_limit=0.02,stream_error=0.01.").Default("").StringVar(&m.faults)
	cmd.Flag("stall-every", "Stall the decoding of every Nth generation request (0: never); see --stall-for and --stall-after-tokens.").Default("0").IntVar(&m.opts.DecodeStall.Every)
	cmd.Flag("stall-for", "How long a --stall-every stall holds the next chunk back (at least).").Default("2s").DurationVar(&m.opts.DecodeStall.For)
	cmd.Flag("stall-after-tokens", "Output token (1-based) after whose chunk a --stall-every stall happens; a shorter output does not stall.").Default("10").IntVar(&m.opts.DecodeStall.AfterTokens)
	cmd.Flag("headers-with-first-chunk", "Delay response headers until the first token.").BoolVar(&m.headersAtFirst)
	cmd.Flag("finish-on-last-chunk", "Put finish_reason on the last content chunk.").BoolVar(&m.finishOnLastChk)
}

// options are the server's settings from the flags.
func (m *mockFlags) options() (mockvllm.Options, error) {
	o := m.opts
	o.TTFT = mockvllm.Dist{Mean: m.ttft, Jitter: m.ttftJitter}
	o.ITL = mockvllm.Dist{Mean: m.itl, Jitter: m.itlJitter}
	o.HeadersWithFirstChunk, o.FinishOnLastChunk = m.headersAtFirst, m.finishOnLastChk
	if m.specTokens > 0 {
		o.SpecDecode = &mockvllm.SpecOptions{NumSpeculativeTokens: m.specTokens, AcceptanceRate: m.specAcceptance}
	}
	if o.BatchSlowdown < 0 || o.PerSequence < 0 || o.PrefillPerToken < 0 || o.PrefixCacheBlocks < 0 {
		return o, fmt.Errorf("--batch-slowdown, --per-sequence, --prefill-per-token and --prefix-cache-blocks cannot be negative")
	}
	if st := o.DecodeStall; st.Every < 0 || st.For < 0 || st.AfterTokens < 1 {
		return o, fmt.Errorf("--stall-every and --stall-for cannot be negative and --stall-after-tokens must be at least 1")
	}
	faults, err := parseFaultRates(m.faults)
	if err != nil {
		return o, err
	}
	o.Faults = faults
	return o, nil
}

func (m *mockFlags) run() int {
	o, err := m.options()
	if err != nil {
		fmt.Fprintln(os.Stderr, "llm-prober mock-vllm:", err)
		return 2
	}
	mock := mockvllm.New(o)
	defer mock.Close()
	srv := &http.Server{Addr: m.listen, Handler: mock, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(os.Stderr, "mock vLLM serving model %q on http://%s\n", o.Model, m.listen)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "llm-prober mock-vllm:", err)
		return 1
	}
	return 0
}

// parseFaultRates reads "name=p,name=p".
func parseFaultRates(s string) (mockvllm.FaultRates, error) {
	rates := mockvllm.FaultRates{}
	if s == "" {
		return rates, nil
	}
	for _, kv := range strings.Split(s, ",") {
		name, p, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("--faults: %q is not name=probability", kv)
		}
		f, err := mockvllm.ParseFault(name)
		if err != nil {
			return nil, fmt.Errorf("--faults: %w", err)
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("--faults: probability %q for %s is not in [0,1]", p, name)
		}
		rates[f] = v
	}
	return rates, nil
}
