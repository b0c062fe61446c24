package shard

import "golang.org/x/sys/unix"

// readClock asks the kernel for its NTP state without changing it
// (Modes 0). Offset is in µs unless STA_NANO; MaxError in µs.
func readClock() Clock {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return Clock{Source: "unavailable"}
	}
	if state == unix.TIME_ERROR || tx.Status&unix.STA_UNSYNC != 0 {
		return Clock{Source: "unsynchronised", MaxError: tx.Maxerror * 1000}
	}
	off := tx.Offset
	if tx.Status&unix.STA_NANO == 0 {
		off *= 1000
	}
	return Clock{Source: "adjtimex", Offset: off, MaxError: tx.Maxerror * 1000}
}
