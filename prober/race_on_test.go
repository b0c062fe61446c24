//go:build race

package prober

// The race detector slows every goroutine several-fold, so timing bounds
// that hold without it become sanity bounds with it.
const raceEnabled = true
