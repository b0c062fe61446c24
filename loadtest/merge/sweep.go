package merge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
)

// RateRun is one rate's sharded run among a sweep's shard files.
type RateRun struct {
	Rate  float64
	Paths []string
	First *Manifest // the first file's
}

// GroupByRate reads each file's manifest (its head only) and groups the
// files by offered rate (ascending): a sweep merged from one sharded run
// per rate (CheckSweep says whether they can be one sweep's points);
// each group is then merged as one run (Read).
func GroupByRate(ctx context.Context, paths []string) ([]RateRun, error) {
	var groups []RateRun
	for _, p := range paths {
		raw, err := resultfile.ReadKey(ctx, p, Key)
		if err != nil {
			return nil, BadInputError{err}
		}
		m, err := manifestFrom(raw)
		if err != nil {
			return nil, BadInputError{fmt.Errorf("%s: %w", p, err)}
		}
		rate, err := strconv.ParseFloat(m.Spec.Rate, 64)
		if err != nil {
			return nil, BadInputError{fmt.Errorf("%s: %s: rate %q is not a rate", p, Key, m.Spec.Rate)}
		}
		i := slices.IndexFunc(groups, func(g RateRun) bool { return g.Rate == rate })
		if i < 0 {
			groups = append(groups, RateRun{Rate: rate, First: m})
			i = len(groups) - 1
		}
		groups[i].Paths = append(groups[i].Paths, p)
	}
	slices.SortFunc(groups, func(a, b RateRun) int { return cmpFloat(a.Rate, b.Rate) })
	return groups, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sweepDiffers is differs but for the rate, the start and the shard
// count, which a sweep's points may each choose.
func (m *Manifest) sweepDiffers(o *Manifest) string {
	a, b := *m, *o
	a.StartAt, a.Count = b.StartAt, b.Count
	for _, s := range []*loadtest.Spec{&a.Spec, &b.Spec} {
		s.Workload = strings.TrimSuffix(s.Workload, fmt.Sprintf(", seed %d", s.Seed))
		s.Rate, s.Seed = "", 0
	}
	return a.differs(&b)
}

// CheckSweep checks that the rate groups are the points of one sweep:
// open-loop runs at finite rates, the same in all but rate, start and
// shard count.
func CheckSweep(groups []RateRun) error {
	for _, g := range groups {
		m := g.First
		s := m.Spec
		switch {
		case math.IsInf(g.Rate, 0) || !(g.Rate > 0):
			return BadInputError{fmt.Errorf("%s: rate %q: a sweep's points are runs at a finite --request-rate", g.Paths[0], s.Rate)}
		case s.Concurrency > 0 || s.Ramp != nil || s.Trace || s.Sessions:
			return BadInputError{fmt.Errorf("%s: a closed loop, ramp, trace or sessions run is not a sweep's point (an open loop at one --request-rate)", g.Paths[0])}
		}
		if d := groups[0].First.sweepDiffers(m); d != "" {
			return BadInputError{fmt.Errorf("%s is not a point of %s's sweep: %s (the points of one sweep differ only in --request-rate, --seed under fresh prompts, and --start-at)", g.Paths[0], groups[0].Paths[0], d)}
		}
	}
	return nil
}
