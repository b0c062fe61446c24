package prober

import (
	"context"
	"errors"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prompt"
)

// Prompt-length profiles. A module with prompt_tokens: N sends a prompt of
// N tokens as the server counts them (usage.prompt_tokens, chat template
// included): filler words from fillerWords, chosen deterministically from
// the module's name, in front of the module's own text, plus single-token
// pad words for the last few tokens. The number of filler words and pads
// is found
//   - exactly, before the first probe, with the server's POST /tokenize
//     (the dialects of prompt.Dialects: vLLM's body for vllm and sglang,
//     llama.cpp's for llamacpp, TGI's for tgi, each in turn for auto),
//     within half the probe's timeout, then corrected from
//     usage.prompt_tokens when the server adds tokens /tokenize did not
//     count (llama.cpp's chat template);
//   - else from usage.prompt_tokens, probe by probe: the first probe
//     assumes one token per filler word, each later one corrects the
//     estimate (prompt.Fit), so the length settles within a few probes.

const (
	nonceLen = 12 // of prompt.ShortWords: 16^12 = 2^48 prefixes
	padWord  = "a"
	// maxTokenizeCalls bounds the /tokenize requests of one sizing.
	maxTokenizeCalls = 24
	// tokenizeAttempts is how many probes try /tokenize before a target
	// is calibrated from usage alone.
	tokenizeAttempts = 3
)

// PromptProfile is what a (target, module) has learned about sizing its
// prompt. The scheduler keeps one per job (RunOptions.Profile); a probe
// without one (the /probe endpoint) sizes its prompt afresh.
type PromptProfile struct {
	mu              sync.Mutex
	fit             *prompt.Fit // nil before the first probe
	tokenizeTries   int
	tokenized       bool // sized with /tokenize (else calibrated from usage)
	lastMeasured    int  // the last count (tokenize or usage)
	lastMeasuredUse bool // lastMeasured came from usage
	// err: prompt_tokens cannot be met (the module's own text is longer);
	// every later probe fails with it.
	err error
	// tokenizer is made on the first sizing; it keeps the dialect that
	// answered.
	tokenizer *prompt.Tokenizer
}

// NewPromptProfile returns an empty profile.
func NewPromptProfile() *PromptProfile { return &PromptProfile{} }

// input is what one probe sends in place of the module's own messages or
// prompt (prompt_tokens, a cold nonce) and the cache_salt it adds.
type input struct {
	messages []config.Message // chat
	prompt   string           // completions
	salt     string           // cache_salt; "" for none
	words    int              // filler words
	pads     int              // pad words
	nonce    bool             // has a unique prefix
}

// build returns the module's input with words filler words, pads pad
// words and the given unique prefix ("" for none).
func build(m *config.Module, words, pads int, nonce string) *input {
	in := &input{words: words, pads: pads, nonce: nonce != ""}
	filler := fillerText(m.Name, words, pads)
	if m.API == config.APICompletions {
		in.prompt = joinNonEmpty(nonce, filler, m.Prompt)
		return in
	}
	msgs := append([]config.Message(nil), m.Messages...)
	if len(msgs) == 0 {
		msgs = []config.Message{{Role: "user"}}
	}
	if filler != "" {
		i := len(msgs) - 1
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == "user" {
				i = j
				break
			}
		}
		msgs[i].Content = joinNonEmpty(filler, msgs[i].Content)
	}
	if nonce != "" {
		msgs[0].Content = joinNonEmpty(nonce, msgs[0].Content)
	}
	in.messages = msgs
	return in
}

func joinNonEmpty(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	return b.String()
}

// fillerText is words filler words chosen by a generator seeded with the
// module name (so modules do not share cached prefixes), then pads pad
// words. A shorter filler is a prefix of a longer one.
func fillerText(module string, words, pads int) string {
	if words+pads == 0 {
		return ""
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(module))
	x := h.Sum64()
	var b strings.Builder
	b.Grow(8 * (words + pads))
	for i := range words + pads {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i >= words {
			b.WriteString(padWord)
			continue
		}
		x += 0x9e3779b97f4a7c15 // splitmix64
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
		b.WriteString(prompt.Words[z%uint64(len(prompt.Words))])
	}
	return b.String()
}

// placeholderNonce stands for a unique prefix while sizing: as many
// single-token words.
var placeholderNonce = strings.TrimSpace(strings.Repeat(prompt.ShortWords[0]+" ", nonceLen))

// start returns the filler words and pads for the next probe, sized with
// /tokenize where the target has one and it has not answered yet (on at
// most tokenizeAttempts probes), in at most half of what is left of ctx;
// r's trace receives what sizing did. A /tokenize that does not answer in
// that time fails the probe with ReasonTimeoutTokenize.
func (p *PromptProfile) start(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, withNonce bool, userAgent string, r *Result) (words, pads int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := m.PromptTokens
	if p.err != nil {
		return 0, 0, p.err
	}
	if p.fit == nil {
		own := len(strings.Fields(m.Prompt))
		for _, msg := range m.Messages {
			own += len(strings.Fields(msg.Content))
		}
		if withNonce {
			own += nonceLen
		}
		p.fit = prompt.NewFit(n, own)
	}
	dialects := prompt.Dialects(t.Backend)
	if p.tokenized || len(dialects) == 0 || p.tokenizeTries >= tokenizeAttempts {
		return p.fit.Words, p.fit.Pads, nil // usage corrects it after the probe
	}
	p.tokenizeTries++
	if p.tokenizer == nil || p.tokenizer.BaseURL != t.URL || p.tokenizer.Model != t.Model {
		p.tokenizer = &prompt.Tokenizer{BaseURL: t.URL, Redacted: t.RedactedURL(), Model: t.Model, Dialects: dialects}
	}
	p.tokenizer.Client, p.tokenizer.UserAgent = client, userAgent // a reload may have made a new client
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	nonce := ""
	if withNonce {
		nonce = placeholderNonce
	}
	for calls := 0; calls < maxTokenizeCalls; calls++ {
		got, err := p.tokenizer.Count(ctx, tokenizeInput(m, build(m, p.fit.Words, p.fit.Pads, nonce)))
		if errors.Is(err, prompt.ErrNotConnected) {
			return 0, 0, fail(ReasonTimeoutConnect, err) // unreachable, as the request would have found
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, 0, fail(ReasonTimeoutTokenize, err)
		}
		if err != nil {
			r.tracef("tokenize failed; sizing the prompt from usage instead", "err", err)
			return p.fit.Words, p.fit.Pads, nil
		}
		p.tokenized = true
		if err := p.measured(got, false); err != nil {
			return 0, 0, err
		}
		if p.fit.Exact {
			break
		}
	}
	r.tracef("prompt sized with /tokenize", "prompt_tokens", p.lastMeasured, "want", n,
		"filler_words", p.fit.Words, "pad_words", p.fit.Pads, "dialect", p.tokenizer.Dialect())
	return p.fit.Words, p.fit.Pads, nil
}

// observe corrects the sizing from a finished probe's usage.prompt_tokens.
func (p *PromptProfile) observe(m *config.Module, words, pads int, r *Result) error {
	if !r.Success() || r.PromptTokens <= 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fit == nil || p.fit.Words != words || p.fit.Pads != pads {
		return nil // sized again meanwhile
	}
	return p.measured(r.PromptTokens, true)
}

// measured passes a count of the current proposal to the fit; a prompt
// that cannot be met fails every later probe.
func (p *PromptProfile) measured(got int, usage bool) error {
	p.lastMeasured, p.lastMeasuredUse = got, usage
	if err := p.fit.Measured(got); err != nil {
		p.err = fail(ReasonOther, err)
		return p.err
	}
	return nil
}

// tokenizeInput is what /tokenize counts of in: the chat messages (vLLM
// applies the chat template) or the completions prompt.
func tokenizeInput(m *config.Module, in *input) prompt.Input {
	if m.API == config.APICompletions {
		return prompt.Input{Text: in.prompt}
	}
	return prompt.Input{Messages: in.messages}
}
