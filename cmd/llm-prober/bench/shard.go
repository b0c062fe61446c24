package bench

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/merge"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// maxStartWait bounds how far ahead --start-at may be: a typo of a day
// (or a year) would hold the pods for it.
const maxStartWait = 24 * time.Hour

// maxStartLate is how late a shard may come to --start-at: a pod
// scheduled late catches up on its part (its send lag says so), but a
// stale time would send the run's first minutes as one burst.
const maxStartLate = time.Minute

// parseShard reads --shard, --shard-count and --start-at, and refuses
// what a sharded run cannot be: every shard must draw the same schedule
// (--seed) from one origin (--start-at), and it is one run.
func (env *benchEnv) parseShard() error {
	b, sc := env.b, &env.b.Shard
	s, err := shard.Parse(sc.Shard, sc.ShardCount, os.Getenv)
	if err != nil {
		return err
	}
	env.shard = s
	if sc.StartAt != "" {
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(sc.StartAt))
		if err != nil {
			return fmt.Errorf("--start-at %q: want RFC 3339, e.g. 2026-11-28T04:00:00Z", sc.StartAt)
		}
		switch d := time.Until(t); {
		case d > maxStartWait:
			return fmt.Errorf("--start-at %s is more than %v away", sc.StartAt, maxStartWait)
		case d < -maxStartLate:
			// The whole schedule up to now would go out at once.
			return fmt.Errorf("--start-at %s passed %v ago: set it ahead of every shard's start", sc.StartAt, (-d).Round(time.Second))
		}
		env.startAt = t
	}
	if s.Whole() {
		return nil
	}
	switch {
	case env.startAt.IsZero():
		return errors.New("--shard needs --start-at: the shards' schedules share one origin")
	case !b.SeedSet:
		return errors.New("--shard needs --seed: every shard draws the same schedule and prompts from it")
	case b.Sweep || b.Rates != "" || b.NumRuns > 1:
		return errors.New("a sharded run is one run: no --sweep, --rates or --num-runs (a sweep is one sharded run per rate, merged with bench merge --rates; docs/bench-sharding.md#sharded-sweeps)")
	case b.KneeRate > 0 || b.DailyRequests > 0 || b.PeakRPS > 0:
		return errors.New("a capacity plan comes from a sweep, not from a shard")
	case b.OutputJSON == "":
		return errors.New("--shard needs --output-json: bench merge reads every shard's requests from it")
	}
	if s.Index > 0 {
		// Only shard 0 scrapes the server and the extra exporters, so the
		// server is not scraped N times.
		b.ServerMetrics = false
		if env.extra, err = serverwatch.NewExtraSet(nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// sharded reports whether the run records a shard manifest: --shard or
// --start-at given.
func (env *benchEnv) sharded() bool { return env.shard.Count > 1 || !env.startAt.IsZero() }

// clock is the shard's clock estimate (Config.Clock in tests).
func (env *benchEnv) clock() shard.Clock {
	if env.b.Clock != nil {
		return env.b.Clock()
	}
	return shard.ReadClock()
}

// announce says what the shard waits for, before it waits.
func (env *benchEnv) announce(c shard.Clock) {
	if env.startAt.IsZero() {
		return
	}
	fmt.Fprintf(env.log, "shard %s: clock %s; waiting %v for the start at %s\n", env.shard, c,
		max(time.Until(env.startAt), 0).Round(time.Millisecond), env.startAt.UTC().Format(time.RFC3339Nano))
}

// manifest is what the shard writes of itself for bench merge.
func (env *benchEnv) manifest(o *loadtest.Options, run *loadtest.Run, rep *summary.Report, c shard.Clock, scraped bool) merge.Manifest {
	b := env.b
	m := merge.Manifest{Index: env.shard.Index, Count: max(env.shard.Count, 1), StartAt: env.startAt, Clock: c,
		StartLag: int64(run.StartLag), Scraper: scraped, Interrupted: run.Interrupted, Spec: o.Spec(), Sizing: env.sizing.Describe(),
		Decide: merge.Decide{Goodput: b.Goodput, Percentiles: b.Percentiles, FailOn: b.FailOn, Label: b.Label, Model: env.target.Model}}
	if rep.Lag.Count > 0 && !o.ClosedLoop() {
		m.SendLagP99 = rep.Lag.Value(99)
		for i := range run.Records {
			if r := &run.Records[i]; !r.Warmup {
				m.SendLagMax = max(m.SendLagMax, summary.Ms(r.Start-r.Planned))
			}
		}
	}
	return m
}
