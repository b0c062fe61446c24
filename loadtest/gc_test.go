package loadtest

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live, scanned uint64
		want          int
	}{
		{0, 0, gcMaxPct},
		{2 << 20, 1 << 20, gcMaxPct}, // small heap: as the old GOGC=400
		{16 << 20, 0, 150},           // 24 MiB of headroom
		{32 << 20, 0, 50},            // 16 MiB
		{40 << 20, 5 << 20, 35},      // 1,400 streams (issue 35): still 16 MiB
		{56 << 20, 8 << 20, 25},      // 64 MiB: 16 MiB, where the growth starts
		{128 << 20, 0, 37},           // 48 MiB
		{1 << 30, 0, 48},             // large heap: 496 MiB, near half of it
	} {
		if got := gcPercentFor(c.live, c.scanned); got != c.want {
			t.Errorf("gcPercentFor(%d MiB, %d MiB) = %d, want %d", c.live>>20, c.scanned>>20, got, c.want)
		}
	}
}

// TestGCHeapGoalNeverFalls: a larger heap never gets a lower heap goal,
// nor less than 16 MiB of headroom (but for GOGC's cap of 400), nor (past 64 MiB) more than half of
// itself; from 32 to 64 MiB the headroom is 16 MiB.
func TestGCHeapGoalNeverFalls(t *testing.T) {
	prev := uint64(0)
	for base := uint64(1 << 20); base <= 4<<30; base += base / 64 {
		pct := gcPercentFor(base, 0)
		h := uint64(pct) * base / 100
		goal := base + h
		if goal+base/100 < prev || (pct < gcMaxPct && h+base/100 < gcHeadroom) || (base > 64<<20 && h > base/2) ||
			(base >= 32<<20 && base <= 64<<20 && h > gcHeadroom) {
			t.Fatalf("headroom %d MiB at %d MiB live (goal was %d MiB)", h>>20, base>>20, prev>>20)
		}
		prev = goal
	}
}

// TestTuneGCBoundsHeapGoal: with 96 MiB live, bench's GC setting lets the
// heap grow by about half of that before collecting, not by four times it
// (GOGC=400: a 480 MiB goal, issue 35).
func TestTuneGCBoundsHeapGoal(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: TuneGC leaves the GC alone")
	}
	keep := make([]byte, 96<<20)
	for i := range keep {
		keep[i] = byte(i) // resident, like live records
	}
	TuneGC()
	goal := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	want := uint64(len(keep)) * 17 / 10 // live + half, with slack for the test binary's own heap
	// The tuner adjusts after a collection, on the finalizer goroutine:
	// collect until it has (a bounded number of times, no clock).
	for i := 0; i < 200 && goal() > want; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if g := goal(); g > want {
		t.Errorf("heap goal %d MiB with %d MiB live, want at most %d MiB", g>>20, len(keep)>>20, want>>20)
	}
	runtime.KeepAlive(keep)
}
