// Package regex owns the configuration's regular expressions: an RE2
// regexp that keeps its source for marshalling, searches unanchored
// (output validators) or matches whole (MatchFull: passthrough names), and
// is refused over caps on its source and compiled program before the
// regexp package builds it.
//
// It may import the standard library only; config imports it, never the
// other way (config/layers_test.go).
package regex
