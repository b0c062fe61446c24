package loadtest

import (
	"fmt"
	"strings"
)

// defaultVocab are common English words that BPE tokenizers (Llama,
// Qwen, GPT, Mistral) encode as one token each with their leading space;
// Calibrate keeps only those the target's tokenizer agrees on.
var defaultVocab = strings.Fields(`the of and to in is that for it as was with be by on not he this are or
his from at which but have an had they you were their one all we can her has there been if more when will
would who so no she other its may these them than some him time only new could also any my first two about
most over such into very then do what like just now out up made way many most how make well even back
use our after work life years being our where much under same day world must own people water good last
great before old year still long place down right while set off small large few part each case point high
every next end open form line come help keep hand turn side head state week word house group`)

// Synthetic is vllm bench serve's random dataset in words: a prompt of
// InputTokens (spread by RangeRatio) after a prefix of PrefixTokens shared
// by every request, and OutputTokens (spread likewise) to generate.
type Synthetic struct {
	InputTokens, OutputTokens, PrefixTokens int
	RangeRatio                              float64
	Seed                                    int64
	// Tok sizes prompts in the server's tokens; nil means one token a word.
	Tok *Sizing

	prefix string
}

// NewSynthetic prepares the shared prefix.
func NewSynthetic(in, out, prefix int, ratio float64, seed int64, tok *Sizing) *Synthetic {
	s := &Synthetic{InputTokens: in, OutputTokens: out, PrefixTokens: prefix, RangeRatio: ratio, Seed: seed, Tok: tok}
	if prefix > 0 {
		s.prefix = s.words(itemRand(seed, -1), s.Tok.words(prefix))
	}
	return s
}

func (s *Synthetic) vocab() []string {
	if s.Tok != nil && len(s.Tok.Vocab) > 0 {
		return s.Tok.Vocab
	}
	return defaultVocab
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
	p := s.words(rng, s.Tok.words(in))
	if s.prefix != "" {
		p = s.prefix + " " + p
	}
	return Item{Prompt: p, PromptTokens: s.PrefixTokens + in, OutputTokens: out}
}

// Describe names the workload.
func (s *Synthetic) Describe() string {
	d := fmt.Sprintf("synthetic: %d input tokens, %d output tokens", s.InputTokens, s.OutputTokens)
	if s.RangeRatio > 0 {
		d += fmt.Sprintf(" (±%g)", s.RangeRatio)
	}
	if s.PrefixTokens > 0 {
		d += fmt.Sprintf(", %d-token shared prefix", s.PrefixTokens)
	}
	return d + fmt.Sprintf(", seed %d", s.Seed)
}
