package merge

import (
	"container/heap"
	"context"
	"errors"
	"iter"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
)

// The union lists the requests as one process records them: in
// completion order. Each shard's file is already in its own completion
// order; the union interleaves them by End, the request's finish on the
// shared origin (ties: the lower shard first), keeping each shard's own
// order. Read orders the records in memory and Replay the merged file's
// by this one rule, so the file lists them as the Run holds them.

// heads is a min-heap of the shards' next records: (End, shard).
type heads []head

type head struct {
	end   int64
	shard int
}

func (h heads) Len() int { return len(h) }
func (h heads) Less(i, j int) bool {
	if h[i].end != h[j].end {
		return h[i].end < h[j].end
	}
	return h[i].shard < h[j].shard
}
func (h heads) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heads) Push(x any)   { *h = append(*h, x.(head)) }
func (h *heads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// interleave puts recs in completion order in place: segs[s] is shard
// s's part of recs as [start, end), in its file's order. The
// permutation costs 5 bytes per record, not a second copy.
func interleave(recs []loadtest.Record, segs [][2]int) {
	perm := make([]int32, 0, len(recs)) // output position → source
	next := make([]int, len(segs))
	h := make(heads, 0, len(segs))
	for s, sg := range segs {
		next[s] = sg[0]
		if sg[0] < sg[1] {
			h = append(h, head{recs[sg[0]].End, s})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		s := h[0].shard
		perm = append(perm, int32(next[s]))
		if next[s]++; next[s] < segs[s][1] {
			h[0].end = recs[next[s]].End
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	done := make([]bool, len(recs))
	for i := range recs {
		if done[i] || int(perm[i]) == i {
			continue
		}
		tmp, j := recs[i], i
		for {
			src := int(perm[j])
			done[j] = true
			if src == i {
				recs[j] = tmp
				break
			}
			recs[j], j = recs[src], src
		}
	}
}

// replayBuffer is the read buffer of each file Replay holds open:
// 256 KiB up to 64 shards, then less, so that all of them together take
// about 16 MiB (at least 4 KiB each).
func replayBuffer(n int) int {
	return min(256<<10, max(4<<10, (16<<20)/max(n, 1)))
}

// errStop ends a shard's reader when Replay stops early.
var errStop = errors.New("replay stopped")

// Replay hands every shard's requests to add in the union's order (as
// Read's Run holds them). Each file is read again, all at once, a
// record at a time: each shard's reader is a coroutine (iter.Pull)
// paused on its next record, so memory is one record and a read buffer
// per shard, and add's record and gaps are valid until it returns.
func Replay(ctx context.Context, m *Result, add func(rec *loadtest.Record, itl []time.Duration, msg string)) error {
	type item struct {
		rec *loadtest.Record
		itl []time.Duration
		msg string
	}
	n, buf := len(m.Paths), replayBuffer(len(m.Paths))
	errs := make([]error, n)
	nexts := make([]func() (item, bool), n)
	for s, p := range m.Paths {
		next, stop := iter.Pull(func(yield func(item) bool) {
			_, err := resultfile.ReadRecordsBuffered(ctx, p, buf, func(rec *loadtest.Record, itl []time.Duration, msg string) error {
				if !yield(item{rec, itl, msg}) {
					return errStop
				}
				return nil
			})
			if !errors.Is(err, errStop) {
				errs[s] = err
			}
		})
		defer stop()
		nexts[s] = next
	}
	cur := make([]item, n)
	h := make(heads, 0, n)
	// pull reads shard s's next record into cur[s]; false at its end.
	pull := func(s int) (bool, error) {
		it, ok := nexts[s]()
		if !ok {
			return false, errs[s] // the reader is done: nil at the file's end
		}
		cur[s] = it
		return true, nil
	}
	for s := range n {
		ok, err := pull(s)
		if err != nil {
			return err
		}
		if ok {
			h = append(h, head{cur[s].rec.End, s})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		s := h[0].shard
		add(cur[s].rec, cur[s].itl, cur[s].msg)
		ok, err := pull(s)
		switch {
		case err != nil:
			return err
		case ok:
			h[0].end = cur[s].rec.End
			heap.Fix(&h, 0)
		default:
			heap.Pop(&h)
		}
	}
	return nil
}
