package shard

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		flag  string
		count int
		env   string
		want  Shard
	}{
		{"", 0, "", Shard{Count: 1}},
		{"1/4", 0, "", Shard{1, 4}},
		{" 3 / 4 ", 0, "", Shard{3, 4}},
		{"2", 3, "", Shard{2, 3}},
		{"", 3, "1", Shard{1, 3}},
		{"0/1", 0, "", Shard{0, 1}},
	} {
		got, err := Parse(c.flag, c.count, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("Parse(%q, %d, %q) = %v, %v; want %v", c.flag, c.count, c.env, got, err, c.want)
		}
	}
	for _, c := range []struct {
		flag  string
		count int
		env   string
		want  string
	}{
		{"4/4", 0, "", "want 0 to 3"},
		{"-1/4", 0, "", "want 0 to 3"},
		{"0/0", 0, "", "want 1 to"},
		{"0/5000", 0, "", "want 1 to 4096"},
		{"1/x", 0, "", "want i/N"},
		{"1/2", 3, "", "disagrees"},
		{"1", 0, "", "give the count"},
		{"", 2, "", "JOB_COMPLETION_INDEX"},
		{"", 2, "one", "JOB_COMPLETION_INDEX \"one\""},
		{"", 2, "9", "JOB_COMPLETION_INDEX: shard index 9"},
		{"", 2, strings.Repeat("9", 1<<20), "JOB_COMPLETION_INDEX: longer than 20 bytes: want a whole number"},
	} {
		if _, err := Parse(c.flag, c.count, env(c.env)); err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 200 {
			t.Errorf("Parse(%q, %d, %.40q): %.200v, want %q", c.flag, c.count, c.env, err, c.want)
		}
	}
}

// Every request, session or user belongs to exactly one shard, and the
// shares add up.
func TestOwnsShareGlobal(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for total := range 30 {
			sum := 0
			for i := range n {
				s := Shard{i, n}
				owned := 0
				for k := range total {
					if s.Owns(k) {
						owned++
					}
				}
				if owned != s.Share(total) {
					t.Errorf("%v of %d: owns %d, Share %d", s, total, owned, s.Share(total))
				}
				sum += owned
				for j := range 5 {
					if g := s.Global(j); !s.Owns(g) {
						t.Errorf("%v: Global(%d) = %d is another shard's", s, j, g)
					}
				}
			}
			if sum != total {
				t.Errorf("%d shards of %d own %d", n, total, sum)
			}
		}
	}
}

func TestClockBound(t *testing.T) {
	c := Clock{Source: "adjtimex", Offset: -3_000_000, MaxError: 2_000_000}
	if c.Bound().Milliseconds() != 5 || !c.Known() || !strings.Contains(c.String(), "offset -3ms ± 2ms") {
		t.Errorf("%v: bound %v", c, c.Bound())
	}
	if u := (Clock{Source: "unsynchronised"}); u.Known() || !strings.Contains(u.String(), "unknown") {
		t.Errorf("%v", u)
	}
	if c := ReadClock(); c.Source == "" {
		t.Error("ReadClock names no source")
	}
}
