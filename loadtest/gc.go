package loadtest

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// TuneGC makes the garbage collector run less often than Go's default,
// unless GOGC or GOMEMLIMIT say otherwise. With 2 cores, the default
// GOGC=100 runs a collection every few hundred milliseconds at 1,000
// req/s, and its mark assists stall the dispatcher for up to ~100 ms
// (measured: p99 send lag 70 ms → 2-4 ms with GOGC=400).
//
// A fixed GOGC=400 lets the heap grow to five times what is live, though:
// 1,400 streams with ~50 MB live peaked at 380-540 MB RSS (issue 35).
// What spaces collections out is the headroom in bytes, not the ratio, so
// after every collection the ratio is set for gcHeadroom (more under 32
// and past 64 MiB live) of new allocation between collections. A small heap
// keeps GOGC=400, as before; a soft limit still caps the heap goal.
func TuneGC() {
	tuneOnce.Do(func() {
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(gcSoftLimit)
		}
		if os.Getenv("GOGC") == "" {
			startGCTuner()
		}
	})
}

var tuneOnce sync.Once

const (
	gcSoftLimit = 768 << 20
	// gcHeadroom is the least allocation between two collections: a
	// collection every ~0.5-1 s at 1,000 req/s. Under 32 MiB live it is
	// more (32 MiB at nothing live, as before issue 35), so that a small
	// run collects as seldom as it did; from 32 MiB it is 16 MiB, not
	// 32: at 1,400 streams (~45 MiB live and scanned) the other 16 MiB
	// was a tenth of bench's peak RSS (issue 35).
	gcHeadroom = 16 << 20
	gcMaxPct   = 400 // the old fixed setting, for heaps under 4 MiB
)

// gcPercentFor is the GOGC that gives the next collection the headroom
// above, for a live heap and the stacks and globals the GC scans (Go
// applies GOGC to all three). Past 64 MiB the headroom grows with the
// heap, half of it less 16 MiB (at 1 GiB: 48 %), so that a large run
// does not collect ever more often; the heap goal never falls as the
// live heap grows.
func gcPercentFor(live, scanned uint64) int {
	base := max(live+scanned, 1)
	half := base / 2
	headroom := max(uint64(gcHeadroom), 2*gcHeadroom-min(half, 2*gcHeadroom), half-min(half, gcHeadroom))
	return int(min(headroom*100/base, gcMaxPct))
}

// startGCTuner sets GOGC now and after every collection, until stop.
func startGCTuner() (stop func()) {
	var stopped atomic.Bool
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}
	adjust := func() {
		metrics.Read(samples)
		var v [3]uint64
		for i, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				v[i] = s.Value.Uint64()
			}
		}
		debug.SetGCPercent(gcPercentFor(v[0], v[1]+v[2]))
	}
	adjust()
	var arm func()
	arm = func() {
		// A sentinel object that becomes garbage at once: its finalizer
		// runs after the next collection, which is when to adjust.
		s := &gcSentinel{}
		runtime.SetFinalizer(s, func(*gcSentinel) {
			if stopped.Load() {
				return
			}
			adjust()
			arm()
		})
	}
	arm()
	return func() { stopped.Store(true) }
}

// gcSentinel holds a pointer so that it is not a tiny allocation, which
// could share its block with a live object and never be finalized.
type gcSentinel struct{ _ *int }
