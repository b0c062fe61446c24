package workload

import (
	"fmt"
	"strings"

	"github.com/llm-prober/llm-prober/prompt"
)

// Synthetic is vllm bench serve's random dataset in words: a prompt of
// InputTokens (spread by RangeRatio) after a prefix of PrefixTokens shared
// by every request, and OutputTokens (spread likewise) to generate.
type Synthetic struct {
	InputTokens, OutputTokens, PrefixTokens int
	RangeRatio                              float64
	Seed                                    int64
	// Tok sizes prompts in the server's tokens; nil means one token a word.
	Tok *Sizing

	Prefix string
	// From a derived workload: lengths drawn from the served ones.
	inDist, outDist *lengthSampler
	derived         *DerivedWorkload
	limit           int // prompt + output tokens a derived request may take (0: no limit)
}

// NewSynthetic prepares the shared prefix.
func NewSynthetic(in, out, prefix int, ratio float64, seed int64, tok *Sizing) *Synthetic {
	s := &Synthetic{InputTokens: in, OutputTokens: out, PrefixTokens: prefix, RangeRatio: ratio, Seed: seed, Tok: tok}
	if prefix > 0 {
		s.Prefix = s.words(itemRand(seed, -1), s.Tok.words(prefix))
	}
	return s
}

func (s *Synthetic) vocab() []string {
	if s.Tok != nil && len(s.Tok.Vocab) > 0 {
		return s.Tok.Vocab
	}
	return prompt.Words
}

func (s *Synthetic) words(rng interface{ IntN(int) int }, n int) string {
	v := s.vocab()
	var b strings.Builder
	b.Grow(n * 6)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v[rng.IntN(len(v))])
	}
	return b.String()
}

// Item draws request i: fresh random words (no prefix-cache hits beyond
// the shared prefix), lengths spread by the range ratio.
func (s *Synthetic) Item(i int) Item {
	rng := itemRand(s.Seed, i)
	in := spread(rng, s.InputTokens, s.RangeRatio)
	out := spread(rng, s.OutputTokens, s.RangeRatio)
	if s.inDist != nil {
		in, out = s.drawDerived(rng)
	}
	p := s.words(rng, s.Tok.words(in))
	if s.Prefix != "" {
		p = s.Prefix + " " + p
	}
	return Item{Prompt: p, PromptTokens: s.PrefixTokens + in, OutputTokens: out}
}

// Describe names the workload.
func (s *Synthetic) Describe() string {
	if s.derived != nil {
		return s.describeDerived()
	}
	d := fmt.Sprintf("synthetic: %d input tokens, %d output tokens", s.InputTokens, s.OutputTokens)
	if s.RangeRatio > 0 {
		d += fmt.Sprintf(" (±%g)", s.RangeRatio)
	}
	if s.PrefixTokens > 0 {
		d += fmt.Sprintf(", %d-token shared prefix", s.PrefixTokens)
	}
	return d + fmt.Sprintf(", seed %d", s.Seed)
}
