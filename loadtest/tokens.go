package loadtest

import (
	"math"
	"time"
)

// AddTokens adds a successful measured request's gaps to the histogram
// and its token arrival times to the per-second counts (vllm bench's
// peak output rate): the engine for each of its requests, bench merge
// for each shard's.
func (run *Run) AddTokens(rec *Record, itl []time.Duration) {
	t := time.Duration(rec.Start + rec.TTFT)
	run.tokenAt(t)
	for _, g := range itl {
		run.ITL.Add(int64(g))
		t += g
		run.tokenAt(t)
	}
}

func (run *Run) tokenAt(t time.Duration) {
	ms := int(t / time.Millisecond)
	if ms < 0 {
		return
	}
	if !run.TokenTimesDropped {
		if run.tokenTimes.n < MaxTokenTimes {
			run.tokenTimes.add(int64(t))
		} else {
			run.tokenTimes, run.TokenTimesDropped = blocks{}, true
		}
	}
	if n := ms + 1 - len(run.TokensPerMs); n > 0 {
		run.TokensPerMs = append(run.TokensPerMs, make([]uint16, n)...)
	}
	if run.TokensPerMs[ms] < math.MaxUint16 {
		run.TokensPerMs[ms]++
	}
}

// FinishTokens joins the token times gathered in blocks into TokenTimes:
// once, after the last AddTokens, when the streams' memory is free.
func (run *Run) FinishTokens() {
	run.TokenTimes, run.tokenTimes = run.tokenTimes.flatten(), blocks{}
}
