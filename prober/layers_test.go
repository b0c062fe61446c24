package prober

import (
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// The prober's own sub-packages, each with the packages of this module it
// may import: none of the prober's packages, so that imports point one way
// (the prober imports them). The package docs say the same in words.
func TestImportsPointDown(t *testing.T) {
	testutil.CheckSubpackages(t, "prober", map[string][]string{
		"prober/rxstamp":  nil,
		"prober/stream":   {"internal/testutil"}, // its tests capture a mock stream
		"prober/tracectx": nil,
	})
}
