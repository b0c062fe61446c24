package shard

import (
	"fmt"
	"time"
)

// Clock is a shard's estimate of how far its clock is from true time,
// recorded in its result file: shards start at one absolute time, so an
// offset shifts a shard's planned send times against the others'
// (latency is measured on the shard's own clock and is not affected).
type Clock struct {
	// Source says where the estimate came from: "adjtimex" (the kernel's
	// NTP discipline, as chrony or ntpd keep it), "unsynchronised" (the
	// kernel says no daemon keeps it: offset unknown), "unavailable"
	// (not Linux, or the call failed) or "injected" (tests).
	Source string `json:"source"`
	// Offset is the kernel's last measured offset from the NTP server,
	// ns (local minus true); MaxError its bound on the total error, ns.
	Offset   int64 `json:"offset_ns"`
	MaxError int64 `json:"max_error_ns"`
}

// Known reports whether the estimate bounds the clock's error.
func (c Clock) Known() bool { return c.Source == "adjtimex" || c.Source == "injected" }

// Bound is the most the clock may be off: |Offset| + MaxError.
func (c Clock) Bound() time.Duration {
	o := c.Offset
	if o < 0 {
		o = -o
	}
	return time.Duration(o + c.MaxError)
}

func (c Clock) String() string {
	if !c.Known() {
		return fmt.Sprintf("offset unknown (%s)", c.Source)
	}
	return fmt.Sprintf("offset %v ± %v (%s)", time.Duration(c.Offset), time.Duration(c.MaxError), c.Source)
}

// ReadClock is the clock estimate now (adjtimex on Linux).
func ReadClock() Clock { return readClock() }
