package prompt

import "testing"

// On a tokenizer at 1.6 tokens a filler word, the fit is exact within a
// few counts; a prompt whose own text is too long is refused.
func TestFitConverges(t *testing.T) {
	count := func(words, pads int) int { return 5 + (words*8+4)/5 + pads } // 5 tokens of own text
	for _, n := range []int{64, 1000, 8192} {
		f := NewFit(n, 5)
		counts := 0
		for ; counts < 6 && !f.Exact; counts++ {
			if err := f.Measured(count(f.Words, f.Pads)); err != nil {
				t.Fatal(err)
			}
		}
		if !f.Exact || count(f.Words, f.Pads) != n {
			t.Errorf("n=%d: %d words + %d pads = %d tokens after %d counts", n, f.Words, f.Pads, count(f.Words, f.Pads), counts)
		}
	}
	f := NewFit(3, 10)
	if err := f.Measured(12); err == nil {
		t.Error("a 12-token own text met prompt_tokens 3")
	}
}
