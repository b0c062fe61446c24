package merge

import (
	"strings"
	"testing"
)

// Points serves the sweep's points by rate (a refined midpoint matches a
// run's decimal rate), each once, names the run a missing point needs
// with its seed, and holds the points to one seed rule: + point number
// (fresh prompts) or one seed.
func TestPoints(t *testing.T) {
	groups := []RateRun{{Rate: 10, Paths: []string{"a"}}, {Rate: 20, Paths: []string{"b"}}, {Rate: 0.3, Paths: []string{"c"}}, {Rate: 99, Paths: []string{"d"}}}
	ps := NewPoints(groups)
	if g, k, err := ps.Next("rate", 10); err != nil || k != 0 || g.Rate != 10 {
		t.Fatalf("first point: %+v %d %v", g, k, err)
	}
	if _, err := ps.Seed(0, 7, 10); err != nil {
		t.Fatal(err)
	}
	if g, k, err := ps.Next("refine", 0.1+0.2); err != nil || k != 1 || g.Rate != 0.3 {
		t.Fatalf("a midpoint in float64: %+v %d %v", g, k, err)
	}
	if fresh, err := ps.Seed(1, 8, 0.3); err != nil || !fresh {
		t.Errorf("seed + 1: fresh %v, %v", fresh, err)
	}
	if _, _, err := ps.Next("rate", 10); err == nil || !strings.Contains(err.Error(), "ran already") {
		t.Errorf("a rate twice: %v", err)
	}
	if _, _, err := ps.Next("refine", 15); err == nil || !strings.Contains(err.Error(), "refine point at 15 req/s has no shard files") ||
		!strings.Contains(err.Error(), "--seed 9") {
		t.Errorf("a missing point: %v", err)
	}
	ps.Next("rate", 20)
	if _, err := ps.Seed(2, 7, 20); err == nil || !strings.Contains(err.Error(), "--seed 9, its shards ran --seed 7") {
		t.Errorf("a point off the seed rule: %v", err)
	}
	if u := ps.Unused(); u != "99 req/s (1 files)" {
		t.Errorf("unused %q", u)
	}

	one := NewPoints(groups)
	one.Next("rate", 10)
	one.Seed(0, 7, 10)
	if _, _, err := one.Next("rate", 50); err == nil || !strings.Contains(err.Error(), "8 (fresh prompts: seed + point number) or 7") {
		t.Errorf("seed rule not known yet: %v", err)
	}
	one.Next("rate", 20)
	if fresh, err := one.Seed(1, 7, 20); err != nil || fresh {
		t.Errorf("one seed: fresh %v, %v", fresh, err)
	}
}
