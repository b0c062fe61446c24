//go:build race

package compare

// raceEnabled: the simulations (one goroutine, arithmetic only) give the
// race detector nothing to check and take ten times longer under it;
// scripts/test.sh runs them without it.
const raceEnabled = true
