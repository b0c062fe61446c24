package prompt

import "fmt"

// maxPadStep is the largest error a Fit corrects with pads alone.
const maxPadStep = 8

// Fit finds how many filler words and single-token pad words, after a
// prompt's own text, make it exactly N tokens as the server counts them,
// from the counts of its successive proposals (/tokenize answers or
// usage.prompt_tokens). It starts at one token a word; a small shortfall
// (or an excess the pads cover) is made up with pads, anything else
// refits tokens = own + perWord × words and aims a few tokens short, for
// pads to finish, so the length settles within a few counts.
type Fit struct {
	N int
	// Words and Pads are the current proposal.
	Words, Pads int
	// Exact: the last count was N.
	Exact bool

	own, perWord float64
	prevWords    int
	prevBase     int // tokens minus pads at prevWords
	havePrev     bool
}

// NewFit proposes n − own filler words for a prompt whose own text is
// own words.
func NewFit(n, own int) *Fit {
	return &Fit{N: n, Words: max(n-own, 0), own: float64(own), perWord: 1}
}

// Measured takes the token count of the current proposal and moves to
// the next. It fails when the prompt's own text alone is more than N
// tokens.
func (f *Fit) Measured(got int) error {
	f.Exact = got == f.N
	if f.Exact {
		return nil
	}
	diff := f.N - got
	if (diff > 0 && diff <= maxPadStep) || (diff < 0 && f.Pads >= -diff) {
		f.Pads += diff
		return nil
	}
	base := got - f.Pads
	if f.Words == 0 && got > f.N {
		return fmt.Errorf("the module's own messages or prompt are %d tokens, more than prompt_tokens %d", base, f.N)
	}
	// Only a slope between distant points is trusted: neighbouring
	// word counts differ by a few words of uneven length.
	switch {
	case f.havePrev && abs(f.Words-f.prevWords)*8 >= max(f.Words, f.prevWords):
		f.perWord = float64(base-f.prevBase) / float64(f.Words-f.prevWords)
	case !f.havePrev && f.Words > 0:
		f.perWord = (float64(base) - f.own) / float64(f.Words)
	}
	f.perWord = min(max(f.perWord, 0.25), 8)
	f.own = float64(base) - f.perWord*float64(f.Words)
	f.prevWords, f.prevBase, f.havePrev = f.Words, base, true
	aim := float64(f.N - maxPadStep/2)
	f.Words = min(max(int((aim-f.own)/f.perWord), 0), f.N)
	f.Pads = 0
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
