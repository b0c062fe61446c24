package merge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/prober"
)

// BadInputError: the files are not shards of one run (mismatched
// settings, a duplicate, not a shard's file): bench's exit 2.
type BadInputError struct{ error }

// ShardError: a shard is missing or failed, or the clocks disagree
// beyond the threshold: bench's exit 4, the run is void.
type ShardError struct{ error }

func (e BadInputError) Unwrap() error { return e.error }
func (e ShardError) Unwrap() error    { return e.error }

// Result is the union of a run's shards.
type Result struct {
	// Run is the union, as if one process had run it: every record on
	// the shared origin (StartAt), in completion order.
	Run    *loadtest.Run
	Shards []Manifest // by index
	Paths  []string   // by index
	// Head is shard 0's aggregate keys (the server's report, metadata).
	Head map[string]json.RawMessage
	// Comparable is false when the offsets were not checked
	// (MaxOffset 0) and some clock is unknown or off by more than 1 ms.
	Comparable bool
}

// Options of a merge.
type Options struct {
	// MaxOffset refuses a shard whose clock bound (|offset| + max error)
	// passes it; 0 checks nothing (the result is then marked not
	// comparable if any clock is unknown).
	MaxOffset time.Duration
}

// MaxRequests bounds the requests of all shards together (about 1 GB
// of records); a variable: tests lower it.
var MaxRequests = 10_000_000

// Read reads the shard files at paths and merges them.
func Read(ctx context.Context, paths []string, opt Options) (*Result, error) {
	if len(paths) == 0 {
		return nil, BadInputError{errors.New("no shard files")}
	}
	run := &loadtest.Run{Errors: map[prober.Reason]string{}}
	byIndex := map[int]int{} // shard index → position in paths
	var ms []Manifest
	var heads []map[string]json.RawMessage
	var segs [][2]int // each path's records in run.Records
	for k, p := range paths {
		var m *Manifest
		from := len(run.Records)
		rf, err := resultfile.ReadRecords(ctx, p, func(rec *loadtest.Record, itl []time.Duration, msg string) error {
			if len(run.Records) >= MaxRequests {
				return fmt.Errorf("the shards hold more than %d requests in all: bench merge keeps every record (104 bytes each)", MaxRequests)
			}
			run.Records = append(run.Records, *rec)
			if rec.Success() && !rec.Warmup {
				run.AddTokens(rec, itl)
			} else if !rec.Success() && msg != "" {
				if _, seen := run.Errors[rec.Reason]; !seen {
					run.Errors[rec.Reason] = msg
				}
			}
			return nil
		})
		if err != nil {
			return nil, BadInputError{err}
		}
		if m, err = manifestOf(rf); err != nil {
			return nil, BadInputError{fmt.Errorf("%s: %w", p, err)}
		}
		if prev, dup := byIndex[m.Index]; dup {
			return nil, BadInputError{fmt.Errorf("%s and %s are both shard %d", paths[prev], p, m.Index)}
		}
		if len(ms) > 0 {
			if d := ms[0].differs(m); d != "" {
				return nil, BadInputError{fmt.Errorf("%s is not a shard of %s's run: %s", p, paths[0], d)}
			}
		}
		if n := expected(m); n >= 0 && measured(rf, run, m) != n {
			return nil, ShardError{fmt.Errorf("shard %d (%s) holds %d measured requests, its part of the schedule %d: a truncated or failed shard", m.Index, p, measured(rf, run, m), n)}
		}
		byIndex[m.Index] = k
		segs = append(segs, [2]int{from, len(run.Records)})
		ms = append(ms, *m)
		heads = append(heads, rf.Head)
	}
	run.FinishTokens()
	res := &Result{Run: run, Comparable: true}
	count := ms[0].Count
	var missing []string
	for i := range count {
		k, ok := byIndex[i]
		if !ok {
			missing = append(missing, fmt.Sprint(i))
			continue
		}
		res.Shards, res.Paths = append(res.Shards, ms[k]), append(res.Paths, paths[k])
	}
	if len(missing) > 0 {
		return nil, ShardError{fmt.Errorf("shard %s of %d missing: a run's union needs every shard (a failed pod's part was not sent, or its file not collected)", strings.Join(missing, ", "), count)}
	}
	for i, m := range res.Shards {
		if m.Interrupted {
			return nil, ShardError{fmt.Errorf("shard %d (%s) was interrupted: its part of the schedule was not all sent", i, res.Paths[i])}
		}
		switch {
		case opt.MaxOffset > 0 && !m.Clock.Known():
			return nil, ShardError{fmt.Errorf("shard %d (%s): clock %s: its start cannot be placed within --max-clock-offset %v (synchronise it with NTP, or pass --max-clock-offset 0 to merge as not comparable)", i, res.Paths[i], m.Clock, opt.MaxOffset)}
		case opt.MaxOffset > 0 && m.Clock.Bound() > opt.MaxOffset:
			return nil, ShardError{fmt.Errorf("shard %d (%s): clock %s passes --max-clock-offset %v: its planned send times are shifted against the others'", i, res.Paths[i], m.Clock, opt.MaxOffset)}
		case opt.MaxOffset == 0 && (!m.Clock.Known() || m.Clock.Bound() > time.Millisecond):
			res.Comparable = false
		}
	}
	res.Head = heads[byIndex[0]]
	o, err := ms[0].Spec.Options()
	if err != nil {
		return nil, BadInputError{fmt.Errorf("%s: %s: %w", paths[0], Key, err)}
	}
	o.Shard = shard.Shard{Count: 1}
	o.StartAt = ms[0].StartAt
	run.Opts, run.Started = o, ms[0].StartAt
	// Completion order, as one process records them (order.go): the
	// percentiles' intervals resample neighbouring blocks.
	bySegment := make([][2]int, count)
	for i := range count {
		bySegment[i] = segs[byIndex[i]]
	}
	interleave(run.Records, bySegment)
	var last int64
	for i := range run.Records {
		last = max(last, run.Records[i].End)
	}
	run.Ended = run.Started.Add(time.Duration(last))
	return res, nil
}

func manifestOf(rf *resultfile.RecordFile) (*Manifest, error) {
	return manifestFrom(rf.Head[Key])
}

// manifestFrom decodes a Manifest strictly; nil raw: not a shard's file.
func manifestFrom(raw json.RawMessage) (*Manifest, error) {
	if raw == nil {
		return nil, fmt.Errorf("no %q: not a shard's file (run bench with --shard and --start-at)", Key)
	}
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", Key, err)
	}
	s := shard.Shard{Index: m.Index, Count: m.Count}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", Key, err)
	}
	if m.StartAt.IsZero() {
		return nil, fmt.Errorf("%s: no start_at: shards without --start-at have no common origin", Key)
	}
	return &m, nil
}

// expected is how many measured requests shard m sends of a counted
// open-loop run (request k to shard k mod N); -1 when the count is not
// fixed (a duration, a closed loop, sessions).
func expected(m *Manifest) int {
	s := m.Spec
	if s.NumPrompts <= 0 || s.Duration > 0 || s.WarmupDuration > 0 || s.Concurrency > 0 || s.Sessions {
		return -1
	}
	n := 0
	for k := s.WarmupRequests; k < s.WarmupRequests+s.NumPrompts; k++ {
		if k%m.Count == m.Index {
			n++
		}
	}
	return n
}

// measured counts the measured requests of the file just read: the last
// rf.Requests records of run.
func measured(rf *resultfile.RecordFile, run *loadtest.Run, _ *Manifest) int {
	n := 0
	for _, r := range run.Records[len(run.Records)-rf.Requests:] {
		if !r.Warmup {
			n++
		}
	}
	return n
}
