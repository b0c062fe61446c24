package prober

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/llm-prober/llm-prober/config"
)

// Prompt-length profiles. A module with prompt_tokens: N sends a prompt of
// N tokens as the server counts them (usage.prompt_tokens, chat template
// included): filler words from fillerWords, chosen deterministically from
// the module's name, in front of the module's own text, plus single-token
// pad words for the last few tokens. The number of filler words and pads
// is found
//   - exactly, before the first probe, with the server's POST /tokenize
//     (vLLM's body for vllm, sglang and auto targets; llama.cpp's for
//     llamacpp), then corrected from usage.prompt_tokens when the server
//     adds tokens /tokenize did not count (llama.cpp's chat template);
//   - else from usage.prompt_tokens, probe by probe: the first probe
//     assumes one token per filler word, each later one corrects the
//     estimate (a secant on tokens per word, then pads), so the length
//     settles within a few probes.

// fillerWords are frequent English words, picked to be one token each
// (with the leading space) in the usual BPE vocabularies; not checked
// against every tokenizer, and the sizing does not depend on it.
var fillerWords = strings.Fields(`time year people way day man thing woman life child world school
	state family student group country problem hand part place case week company system program
	question work government number night point home water room mother area money story fact month
	lot right study book eye job word business issue side kind head house service friend father
	power hour game line end member law car city name`)

// nonceWords are short words that are one token in any tokenizer: a cold
// probe's unique prefix is nonceLen of them, so its length never varies.
var nonceWords = strings.Fields("a an the of to in on at by for and or is it as we")

const (
	nonceLen = 12 // 16^12 = 2^48 prefixes
	padWord  = "a"
	// maxPadStep is the largest error corrected with pads alone.
	maxPadStep = 8
	// maxTokenizeCalls bounds the /tokenize requests of one sizing.
	maxTokenizeCalls = 24
	// maxTokenizeBody bounds a /tokenize answer (a million token ids).
	maxTokenizeBody = 32 << 20
	// tokenizeAttempts is how many probes try /tokenize before a target
	// is calibrated from usage alone.
	tokenizeAttempts = 3
)

// PromptProfile is what a (target, module) has learned about sizing its
// prompt. The scheduler keeps one per job (RunOptions.Profile); a probe
// without one (the /probe endpoint) sizes its prompt afresh.
type PromptProfile struct {
	mu          sync.Mutex
	words, pads int
	// The model tokens = own + perWord × words + pads, fitted to the
	// measurements (tokenize counts or usage.prompt_tokens).
	own, perWord    float64
	prevWords       int
	prevBase        int // tokens minus pads at prevWords
	havePrev        bool
	tokenizeTries   int
	tokenized       bool // sized with /tokenize (else calibrated from usage)
	exact           bool // the last count was prompt_tokens exactly
	lastMeasured    int  // the last count (tokenize or usage)
	lastMeasuredUse bool // lastMeasured came from usage
	// err: prompt_tokens cannot be met (the module's own text is longer);
	// every later probe fails with it.
	err error
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
		b.WriteString(fillerWords[z%uint64(len(fillerWords))])
	}
	return b.String()
}

// placeholderNonce stands for a unique prefix while sizing: as many
// single-token words.
var placeholderNonce = strings.TrimSpace(strings.Repeat(nonceWords[0]+" ", nonceLen))

// start returns the filler words and pads for the next probe, sized with
// /tokenize where the target has one and it has not answered yet (on at
// most tokenizeAttempts probes); r's trace receives what sizing did.
func (p *PromptProfile) start(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, withNonce bool, userAgent string, r *Result) (words, pads int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := m.PromptTokens
	if p.err != nil {
		return 0, 0, p.err
	}
	if p.perWord == 0 {
		p.perWord = 1
		own := len(strings.Fields(m.Prompt))
		for _, msg := range m.Messages {
			own += len(strings.Fields(msg.Content))
		}
		if withNonce {
			own += nonceLen
		}
		p.own = float64(own)
		p.words, p.pads = max(n-own, 0), 0
	}
	if p.tokenized || !tokenizes(t.Backend) || p.tokenizeTries >= tokenizeAttempts {
		return p.words, p.pads, nil // usage corrects it after the probe
	}
	p.tokenizeTries++
	nonce := ""
	if withNonce {
		nonce = placeholderNonce
	}
	for calls := 0; calls < maxTokenizeCalls; calls++ {
		got, err := tokenize(ctx, client, t, m, build(m, p.words, p.pads, nonce), userAgent)
		if err != nil {
			r.tracef("tokenize failed; sizing the prompt from usage instead", "err", err)
			return p.words, p.pads, nil
		}
		p.tokenized = true
		if err := p.measured(n, got, false); err != nil {
			return 0, 0, err
		}
		if p.exact {
			break
		}
	}
	r.tracef("prompt sized with /tokenize", "prompt_tokens", p.lastMeasured, "want", n,
		"filler_words", p.words, "pad_words", p.pads)
	return p.words, p.pads, nil
}

// observe corrects the sizing from a finished probe's usage.prompt_tokens.
func (p *PromptProfile) observe(m *config.Module, words, pads int, r *Result) error {
	if !r.Success() || r.PromptTokens <= 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.words != words || p.pads != pads {
		return nil // sized again meanwhile
	}
	return p.measured(m.PromptTokens, r.PromptTokens, true)
}

// measured takes the token count of the current words and pads and picks
// the next ones: a small shortfall (or an excess the pads cover) is made
// up with pads, one token each; anything else refits tokens = own +
// perWord × words and aims a few tokens short, for pads to finish.
func (p *PromptProfile) measured(n, got int, usage bool) error {
	p.lastMeasured, p.lastMeasuredUse = got, usage
	p.exact = got == n
	if p.exact {
		return nil
	}
	diff := n - got
	if (diff > 0 && diff <= maxPadStep) || (diff < 0 && p.pads >= -diff) {
		p.pads += diff
		return nil
	}
	base := got - p.pads
	if p.words == 0 && got > n {
		p.err = fail(ReasonOther, fmt.Errorf("the module's own messages or prompt are %d tokens, more than prompt_tokens %d", base, n))
		return p.err
	}
	// Only a slope between distant points is trusted: neighbouring
	// word counts differ by a few words of uneven length.
	switch {
	case p.havePrev && abs(p.words-p.prevWords)*8 >= max(p.words, p.prevWords):
		p.perWord = float64(base-p.prevBase) / float64(p.words-p.prevWords)
	case !p.havePrev && p.words > 0:
		p.perWord = (float64(base) - p.own) / float64(p.words)
	}
	p.perWord = min(max(p.perWord, 0.25), 8)
	p.own = float64(base) - p.perWord*float64(p.words)
	p.prevWords, p.prevBase, p.havePrev = p.words, base, true
	aim := float64(n - maxPadStep/2)
	p.words = min(max(int((aim-p.own)/p.perWord), 0), n)
	p.pads = 0
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// tokenizes reports whether a backend's server is asked for /tokenize.
func tokenizes(b config.Backend) bool {
	switch b {
	case config.BackendVLLM, config.BackendSGLang, config.BackendLlamaCPP, config.BackendAuto, "":
		return true
	}
	return false
}

// tokenize asks the target how many tokens the input is: vLLM's POST
// /tokenize (chat messages through the chat template, or the prompt) and
// its {"count"}, or llama.cpp's {"content"} and its {"tokens"}.
func tokenize(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, in *input, userAgent string) (int, error) {
	body := map[string]any{}
	switch {
	case t.Backend == config.BackendLlamaCPP:
		text := in.prompt
		if m.API != config.APICompletions {
			parts := make([]string, len(in.messages))
			for i, msg := range in.messages {
				parts[i] = msg.Content
			}
			text = strings.Join(parts, "\n")
		}
		body["content"], body["add_special"] = text, true
	case m.API == config.APICompletions:
		body["model"], body["prompt"] = t.Model, in.prompt
	default:
		msgs := make([]map[string]string, len(in.messages))
		for i, msg := range in.messages {
			msgs[i] = map[string]string{"role": msg.Role, "content": msg.Content}
		}
		body["model"], body["messages"] = t.Model, msgs
	}
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(t.URL, "/")+"/tokenize", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if userAgent != "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, redactURLError(err, t.RedactedURL()+"/tokenize")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("POST /tokenize: HTTP %d: %s", resp.StatusCode, bodySnippet(resp.Body))
	}
	var out struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTokenizeBody)).Decode(&out); err != nil {
		return 0, fmt.Errorf("POST /tokenize: %w", err)
	}
	switch {
	case out.Count != nil && *out.Count > 0:
		return *out.Count, nil
	case len(out.Tokens) > 0:
		return len(out.Tokens), nil
	}
	return 0, errors.New("POST /tokenize: no count and no tokens in the answer")
}
