package prober

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prompt"
)

// Cold and warm prefill. A module's cache mode decides whether its probes
// may be served from the server's prefix cache:
//   - warm (default): the same prompt every probe, so after the first one
//     the server serves it from its prefix cache and TTFT is cached prefill;
//   - cold: every probe is new to the server. A vllm target gets a random
//     cache_salt (vLLM >= 0.9, V1 engine: the salt enters the hash of the
//     first KV block, so no block is shared and the prompt is unchanged);
//     any other backend gets a unique prefix of nonceLen prompt.ShortWords
//     at the start of the first message (or the prompt), so at most the
//     blocks the chat template puts before it are shared;
//   - paired: a cold probe and, as soon as it succeeded, the identical
//     request again (same salt or prefix), which the server serves from
//     the blocks the first one left. The cold request is the module's
//     probe in every usual family (TTFT, goodput, SLOs); both TTFTs and
//     their ratio go to the pair families. The pair shares the probe's
//     timeout and fails as a whole if either request fails.

// PrefillResult is what a probe of a module with a cache mode other than
// warm or with prompt_tokens did besides the request itself.
type PrefillResult struct {
	Cache        config.CacheMode
	PromptTarget int  // prompt_tokens; 0 if unset
	Salted       bool // cold by cache_salt (else by a unique prefix)
	// FillerWords and PadWords sized the prompt; Tokenized says the size
	// came from the server's /tokenize.
	FillerWords, PadWords int
	Tokenized             bool
	// Warm is the warm request of a paired probe (nil if it did not run).
	Warm *Result
}

// planned reports whether a module needs more than its plain request.
func planned(m *config.Module) bool {
	return m.PromptTokens > 0 || (m.Cache != "" && m.Cache != config.CacheWarm)
}

type inputKey struct{}

// inputFrom returns the input newRequest sends instead of the module's
// own, if runPlanned set one.
func inputFrom(ctx context.Context) *input {
	in, _ := ctx.Value(inputKey{}).(*input)
	return in
}

// salted reports whether a cold probe of t uses cache_salt.
func salted(t *config.Target) bool { return backend.CapsOf(string(t.Backend)).CacheSalt }

// runPlanned runs a probe of a module with prompt_tokens or a cold or
// paired cache mode: it sizes the prompt, makes it cold, and runs the
// request (twice when paired) through RunWithOptions.
func runPlanned(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, id, userAgent string, o RunOptions) *Result {
	pr := &PrefillResult{Cache: m.Cache, PromptTarget: m.PromptTokens}
	if pr.Cache == "" {
		pr.Cache = config.CacheWarm
	}
	cold := m.Cold()
	pr.Salted = cold && salted(t)
	withNonce := cold && !pr.Salted
	var words, pads int
	p := o.Profile
	if m.PromptTokens > 0 {
		if p == nil {
			p = NewPromptProfile()
		}
		sizing := &Result{trace: o.Trace}
		start := time.Now()
		var err error
		if words, pads, err = p.start(ctx, client, t, m, withNonce, userAgent, sizing); err != nil {
			// Start is when sizing began: a timeout_tokenize lasted that long.
			r := &Result{ID: id, Target: t.Name, Model: t.Model, Module: m.Name, Start: start,
				Reason: ReasonOther, Err: err, Prefill: pr, trace: o.Trace}
			if pe := (*probeError)(nil); errors.As(err, &pe) {
				r.Reason = pe.reason
			}
			if phase := r.Reason.TimeoutPhase(); phase != "" {
				r.Err = fmt.Errorf("timeout %s: %w", phase, err)
			}
			r.tracef("probe failed", "reason", r.Reason, "err", err)
			return r
		}
		pr.FillerWords, pr.PadWords = words, pads
		p.mu.Lock()
		pr.Tokenized = p.tokenized
		p.mu.Unlock()
	}
	nonce := ""
	if withNonce {
		nonce = newNonce()
	}
	in := build(m, words, pads, nonce)
	if pr.Salted {
		in.salt = "llm-prober-" + NewProbeID() + NewProbeID()
	}
	rctx := context.WithValue(ctx, inputKey{}, in)
	first := o
	if m.Cache == config.CachePaired {
		first.CloseConnection = false // the warm request follows at once
	}
	r := RunWithOptions(rctx, client, t, m, id, userAgent, first)
	r.Prefill = pr
	if m.Cache == config.CachePaired && r.Success() {
		w := RunWithOptions(rctx, client, t, m, id+"-warm", userAgent, o)
		pr.Warm = w.summary()
		if !w.Success() {
			r.Reason, r.Err = w.Reason, fmt.Errorf("warm request of the pair (%s): %w", w.ID, w.Err)
			r.Good, r.SLOViolations = false, nil
		}
	}
	if p != nil {
		if err := p.observe(m, words, pads, r); err != nil {
			r.tracef("prompt sizing", "err", err)
		}
	}
	return r
}

// newNonce is a cold probe's unique prefix: nonceLen single-token words.
func newNonce() string {
	w := make([]string, nonceLen)
	for i := range w {
		w[i] = prompt.ShortWords[rand.N(len(prompt.ShortWords))]
	}
	return strings.Join(w, " ")
}
