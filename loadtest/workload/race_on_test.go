//go:build race

package workload

// raceEnabled: the race detector drops sync.Pool items at random and
// instruments allocations, so allocation counts are checked without it.
const raceEnabled = true
