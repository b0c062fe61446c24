//go:build !linux

package shard

// readClock: without adjtimex the offset is unknown; the merge then
// relies on --max-clock-offset 0 (documented in docs/bench-sharding.md).
func readClock() Clock { return Clock{Source: "unavailable"} }
