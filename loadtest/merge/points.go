package merge

import (
	"fmt"
	"strings"
)

// Points hands a replayed sweep its points from the rate groups, in the
// order the sweep asks for them, and checks that each was drawn with the
// seed bench --sweep gives it: point k with --seed + k under fresh
// prompts (bench's default), else every point with --seed.
type Points struct {
	groups []RateRun
	used   map[float64]bool
	seed0  int64
	step   int // 1: seed + point number, 0: one seed, -1: not known yet
}

// NewPoints serves the groups' points.
func NewPoints(groups []RateRun) *Points {
	return &Points{groups: groups, used: map[float64]bool{}, step: -1}
}

// Next is the group of the sweep's next point (of kind, at rate) and its
// number k; a rate no files hold, or one used already, is an error
// naming the run it needs.
func (ps *Points) Next(kind string, rate float64) (*RateRun, int, error) {
	k := len(ps.used)
	for i := range ps.groups {
		g := &ps.groups[i]
		if !sameRate(g.Rate, rate) {
			continue
		}
		if ps.used[g.Rate] {
			return nil, k, fmt.Errorf("the sweep's %s point at %g req/s is a rate it ran already: one sharded run cannot be two points", kind, rate)
		}
		ps.used[g.Rate] = true
		return g, k, nil
	}
	return nil, k, fmt.Errorf("the sweep's %s point at %g req/s has no shard files: run a sharded run at --request-rate %g (--seed %s) and merge again with its files, or merge with --sweep-refine 0 to stop before refining",
		kind, rate, rate, ps.seedFor(k))
}

// Seed checks point k's seed; fresh reports whether the points step it
// (known once a second point is seen).
func (ps *Points) Seed(k int, seed int64, rate float64) (fresh bool, err error) {
	if k == 0 {
		ps.seed0 = seed
		return false, nil
	}
	switch {
	case ps.step < 0 && seed == ps.seed0+int64(k):
		ps.step = 1
	case ps.step < 0 && seed == ps.seed0:
		ps.step = 0
	}
	if ps.step < 0 || seed != ps.seed0+int64(ps.step*k) {
		return false, fmt.Errorf("the %g req/s point is the sweep's point %d: a single bench --sweep draws it with --seed %s, its shards ran --seed %d",
			rate, k, ps.seedFor(k), seed)
	}
	return ps.step == 1, nil
}

// seedFor is the seed point k is drawn with, as far as known.
func (ps *Points) seedFor(k int) string {
	switch {
	case len(ps.used) == 0:
		return "as the other points'"
	case ps.step == 1:
		return fmt.Sprint(ps.seed0 + int64(k))
	case ps.step == 0:
		return fmt.Sprint(ps.seed0)
	}
	return fmt.Sprintf("%d (fresh prompts: seed + point number) or %d (--no-fresh-prompts)", ps.seed0+int64(k), ps.seed0)
}

// Unused names the groups the sweep never asked for.
func (ps *Points) Unused() string {
	var out []string
	for _, g := range ps.groups {
		if !ps.used[g.Rate] {
			out = append(out, fmt.Sprintf("%g req/s (%d files)", g.Rate, len(g.Paths)))
		}
	}
	return strings.Join(out, ", ")
}

// sameRate: a refined rate is a midpoint computed in float64; a run's
// --request-rate is its decimal text.
func sameRate(a, b float64) bool {
	d := a - b
	return d <= 1e-9*max(a, b) && -d <= 1e-9*max(a, b)
}
