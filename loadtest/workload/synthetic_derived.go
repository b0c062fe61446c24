package workload

import (
	"fmt"
	"math/rand/v2"
)

// NewSyntheticFrom is the synthetic workload of a derived one: every
// request's prompt length (shared prefix included) and output length
// drawn from the served distributions, after a shared prefix of
// prefixTokens (the derived one, unless the user chose another).
func NewSyntheticFrom(w *DerivedWorkload, prefixTokens int, seed int64, tok *Sizing) *Synthetic {
	s := NewSynthetic(int(w.Input.Mean+0.5), int(w.Output.Mean+0.5), prefixTokens, 0, seed, tok)
	s.inDist, s.outDist, s.derived = newLengthSampler(&w.Input), newLengthSampler(&w.Output), w
	return s
}

// MaxPromptTokens is the longest prompt the workload sends (the prefix
// included), and MaxOutputTokens the longest output.
func (s *Synthetic) MaxPromptTokens() int {
	if s.derived != nil {
		return max(int(s.derived.Input.Max()), s.PrefixTokens+1)
	}
	return s.PrefixTokens + SpreadMax(s.InputTokens, s.RangeRatio)
}

// MaxOutputTokens is the longest output the workload asks for.
func (s *Synthetic) MaxOutputTokens() int {
	if s.derived != nil {
		return int(s.derived.Output.Max())
	}
	return SpreadMax(s.OutputTokens, s.RangeRatio)
}

func (s *Synthetic) describeDerived() string {
	d := fmt.Sprintf("served workload: input tokens mean %.0f (p99 %.0f), output tokens mean %.0f (p99 %.0f)",
		s.derived.Input.Mean, s.derived.Input.Quantile(0.99), s.derived.Output.Mean, s.derived.Output.Quantile(0.99))
	if s.PrefixTokens > 0 {
		d += fmt.Sprintf(", %d-token shared prefix", s.PrefixTokens)
	}
	return d + fmt.Sprintf(", seed %d", s.Seed)
}

// LimitContext keeps derived requests within n prompt + output tokens
// (the server's context less what it adds): the served traffic fit it,
// but the extrapolated top bucket may not.
func (s *Synthetic) LimitContext(n int) { s.limit = n }

// drawDerived draws one request's unique prompt part and output length;
// the served prompt length includes the shared prefix.
func (s *Synthetic) drawDerived(rng *rand.Rand) (int, int) {
	p, out := max(s.inDist.sample(rng), s.PrefixTokens+1), s.outDist.sample(rng)
	if s.limit > 0 && p+out > s.limit {
		p = min(p, max(s.limit-1, s.PrefixTokens+1))
		out = max(s.limit-p, 1)
	}
	return p - s.PrefixTokens, out
}
