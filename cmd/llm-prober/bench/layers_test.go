package bench

import (
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// bench's own sub-packages, each with the packages of this module it may
// import: never bench, which imports them (loadtest/layers_test.go places
// them among the loadtest layers). The package docs say the same.
func TestImportsPointDown(t *testing.T) {
	testutil.CheckSubpackages(t, "cmd/llm-prober/bench", map[string][]string{
		"cmd/llm-prober/bench/exitcode": nil,
		"cmd/llm-prober/bench/mergecmd": {"cmd/llm-prober/bench/exitcode", "internal/textfmt", "prober",
			"loadtest", "loadtest/merge", "loadtest/report", "loadtest/resultfile", "loadtest/serverwatch",
			"loadtest/summary", "loadtest/sweep", "loadtest/workload"},
	})
}
