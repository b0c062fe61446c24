package regex

import "testing"

func TestRegexp(t *testing.T) {
	r, err := New("a|ab")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s             string
		search, whole bool
	}{
		{"ab", true, true}, // leftmost-first "a" would stop early; MatchFull must not
		{"xaby", true, false},
		{"b", false, false},
	} {
		if got := r.MatchString(c.s); got != c.search {
			t.Errorf("MatchString(%q) = %v", c.s, got)
		}
		if got := r.MatchFull(c.s); got != c.whole {
			t.Errorf("MatchFull(%q) = %v", c.s, got)
		}
	}
	// A Regexp built by hand (no anchored copy) still matches fully.
	if !(&Regexp{Source: "vllm:.*"}).MatchFull("vllm:x") {
		t.Error("hand-built Regexp")
	}
	if _, err := New("("); err == nil {
		t.Error("no error for (")
	}
}
