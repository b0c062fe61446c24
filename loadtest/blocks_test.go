package loadtest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"
)

func TestBlocksKeepOrderAcrossBlocks(t *testing.T) {
	var l blocks
	if l.flatten() != nil {
		t.Fatal("empty list flattens to non-nil")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	want := []int64{0, math.MaxInt64, math.MinInt64, -1, math.MaxInt64, 1}
	for len(want) < blockBytes/2 {
		want = append(want, rng.Int64()>>rng.IntN(64)*int64(1-2*rng.IntN(2)))
	}
	for _, v := range want {
		l.add(v)
	}
	if len(l.b) < 3 {
		t.Errorf("%d blocks for %d values, want at least 3", len(l.b), len(want))
	}
	got := l.flatten()
	if !slices.Equal(got, want) || cap(got) != len(want) {
		t.Errorf("flatten: %d values (cap %d), equal %v", len(got), cap(got), slices.Equal(got, want))
	}
	if l.n != 0 || l.b != nil {
		t.Error("flatten did not empty the list")
	}
}

// TestTokenTimesMemory: the token arrival times a run keeps for vllm's
// exact peak, 1,000 requests of 64 tokens 20 ms apart, completing in
// turn (each a little later than the last), take at most 4.5 bytes a
// token while the streams run (8 as int64, issue 35), and come back
// exact.
func TestTokenTimesMemory(t *testing.T) {
	run := &Run{}
	var want []int64
	for i := range 1000 {
		rec := &Record{Start: int64(i) * int64(time.Millisecond), TTFT: int64(25*time.Millisecond + time.Duration(i%7)*time.Microsecond)}
		itl := make([]time.Duration, 63)
		at := rec.Start + rec.TTFT
		want = append(want, at)
		for j := range itl {
			itl[j] = 20*time.Millisecond + time.Duration(j*331%1000)*time.Microsecond
			at += int64(itl[j])
			want = append(want, at)
		}
		run.AddTokens(rec, itl)
	}
	held := 0
	for _, b := range run.tokenTimes.b {
		held += len(b) * int(unsafe.Sizeof(b[0]))
	}
	if per := float64(held) / float64(len(want)); per > 4.5 {
		t.Errorf("%.2f bytes a token time, want at most 4.5", per)
	}
	run.FinishTokens()
	if !slices.Equal(run.TokenTimes, want) {
		t.Errorf("token times differ after the round trip (%d, want %d)", len(run.TokenTimes), len(want))
	}
}
