package merge

import (
	"container/heap"
	"context"
	"errors"
	"sync"
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

// item is one record read from a shard's file, handed to Replay's reader.
type item struct {
	rec loadtest.Record
	itl []time.Duration
	msg string
}

// Replay hands every shard's requests to add in the union's order (as
// Read's Run holds them), each file read again one record at a time by
// a goroutine of its own: memory stays that of a few records per shard.
func Replay(ctx context.Context, m *Result, add func(rec *loadtest.Record, itl []time.Duration, msg string)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := len(m.Paths)
	chs := make([]chan item, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: every reader ends
	for s, p := range m.Paths {
		chs[s] = make(chan item, 64)
		wg.Go(func() {
			defer close(chs[s])
			_, errs[s] = resultfile.ReadRecords(ctx, p, func(rec *loadtest.Record, itl []time.Duration, msg string) error {
				select {
				case chs[s] <- item{*rec, append([]time.Duration(nil), itl...), msg}:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		})
	}
	cur := make([]item, n)
	h := make(heads, 0, n)
	pull := func(s int) error {
		it, ok := <-chs[s]
		if !ok {
			return errs[s] // the reader is done: nil at the file's end
		}
		cur[s] = it
		heap.Push(&h, head{it.rec.End, s})
		return nil
	}
	for s := range n {
		if err := pull(s); err != nil {
			return err
		}
	}
	for h.Len() > 0 {
		s := heap.Pop(&h).(head).shard
		add(&cur[s].rec, cur[s].itl, cur[s].msg)
		if err := pull(s); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.Join(errs...)
}
