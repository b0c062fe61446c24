package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is part Index of Count of one run. The zero value (and 0/1) is
// the whole run.
type Shard struct {
	Index, Count int
}

// MaxCount bounds --shard's N: more shards than this would each send too
// little for their own figures to mean anything, and a typo (1/10000)
// would go unnoticed.
const MaxCount = 4096

// Whole reports whether s is the whole run (no sharding).
func (s Shard) Whole() bool { return s.Count <= 1 }

// Owns reports whether s sends request (or session, or user) k of the
// shared schedule.
func (s Shard) Owns(k int) bool { return s.Whole() || k%s.Count == s.Index }

// Share is how many of the first n requests (sessions, users) s sends.
func (s Shard) Share(n int) int {
	if s.Whole() {
		return n
	}
	q, r := n/s.Count, n%s.Count
	if s.Index < r {
		q++
	}
	return q
}

// Global is the schedule's index of s's local request j (a closed loop's
// or a session run's, which number their requests as they go): distinct
// across shards, and j itself in a whole run.
func (s Shard) Global(j int) int {
	if s.Whole() {
		return j
	}
	return j*s.Count + s.Index
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, max(s.Count, 1)) }

// Check refuses an index outside 0..Count-1 or a count out of range.
func (s Shard) Check() error {
	switch {
	case s.Count < 1 || s.Count > MaxCount:
		return fmt.Errorf("shard count %d: want 1 to %d", s.Count, MaxCount)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard index %d: want 0 to %d (count %d)", s.Index, s.Count-1, s.Count)
	}
	return nil
}

// maxIndexBytes bounds a shard index as read (JOB_COMPLETION_INDEX
// included): any int64 fits.
const maxIndexBytes = 20

// Parse reads --shard: "i/N", or "i" alone with count (from
// --shard-count), or "" for the index from env (JOB_COMPLETION_INDEX, an
// Indexed Job's) with count. count 0 with no "/N" is the whole run.
func Parse(flag string, count int, env func(string) string) (Shard, error) {
	idx := flag
	if i, n, ok := strings.Cut(flag, "/"); ok {
		c, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			return Shard{}, fmt.Errorf("--shard %q: want i/N, e.g. 0/4", flag)
		}
		if c < 1 {
			return Shard{}, fmt.Errorf("--shard %q: %w", flag, Shard{Count: c}.Check())
		}
		if count > 0 && count != c {
			return Shard{}, fmt.Errorf("--shard %q disagrees with --shard-count %d", flag, count)
		}
		idx, count = i, c
	}
	if count == 0 {
		if flag != "" {
			return Shard{}, fmt.Errorf("--shard %q: give the count as i/N or with --shard-count", flag)
		}
		return Shard{Count: 1}, nil
	}
	src := "--shard"
	if strings.TrimSpace(idx) == "" {
		idx, src = env("JOB_COMPLETION_INDEX"), "JOB_COMPLETION_INDEX"
		if idx == "" {
			return Shard{}, fmt.Errorf("--shard-count %d without --shard: set --shard i or run in an Indexed Job (JOB_COMPLETION_INDEX)", count)
		}
	}
	if len(idx) > maxIndexBytes { // an environment value is shown in the error: bound it
		return Shard{}, fmt.Errorf("%s: longer than %d bytes: want a whole number", src, maxIndexBytes)
	}
	i, err := strconv.Atoi(strings.TrimSpace(idx))
	if err != nil {
		return Shard{}, fmt.Errorf("%s %q: want a whole number", src, idx)
	}
	s := Shard{Index: i, Count: count}
	if err := s.Check(); err != nil {
		return Shard{}, fmt.Errorf("%s: %w", src, err)
	}
	return s, nil
}
