package prompt

import (
	"context"
	"fmt"
	"strings"
)

// SingleTokenWords measures what the server adds to every prompt
// (overhead: BOS) and keeps the Words its tokenizer counts as exactly one
// token in context, so that a prompt of n of them is overhead + n tokens
// by construction.
func (t *Tokenizer) SingleTokenWords(ctx context.Context) (words []string, overhead int, err error) {
	rep := func(w string, n int) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	count := func(s string) (int, error) { return t.Count(ctx, Input{Text: s}) }
	c4, err := count(rep("the", 4))
	if err != nil {
		return nil, 0, err
	}
	c8, err := count(rep("the", 8))
	if err != nil {
		return nil, 0, err
	}
	if c8-c4 != 4 {
		return nil, 0, fmt.Errorf("tokenize: %q is not one token per word (4 words: %d tokens, 8 words: %d)", "the", c4, c8)
	}
	overhead = c4 - 4
	// Each word between two fixed single-token words: merges with the
	// neighbours show up too.
	for _, w := range Words {
		c, err := count("the " + rep(w, 8) + " the")
		if err != nil {
			return nil, 0, err
		}
		if c-overhead == 10 {
			words = append(words, w)
		}
	}
	if len(words) < 16 {
		return nil, 0, fmt.Errorf("tokenize: only %d of %d common words are single tokens; cannot size prompts exactly", len(words), len(Words))
	}
	return words, overhead, nil
}
