package config

import (
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// config's own sub-packages, each with the packages of this module it may
// import: none of config's packages, so that imports point one way (config
// imports them). The package docs say the same in words.
func TestImportsPointDown(t *testing.T) {
	testutil.CheckSubpackages(t, "config", map[string][]string{
		"config/otlpcfg":    nil,
		"config/regex":      nil,
		"config/yamlbudget": nil,
	})
}
