// Package examples holds the example configuration shipped with llm-prober.
package examples

import (
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

// The example in the README must stay valid as the schema evolves.
func TestExampleConfigLoads(t *testing.T) {
	cfg, err := config.LoadFile("llm-prober.yml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Targets) != 3 || len(cfg.Modules) != 6 {
		t.Errorf("%d targets, %d modules", len(cfg.Targets), len(cfg.Modules))
	}
}

// The Docker image runs this file as it is: a tracing endpoint there would
// export to a collector that is not there (and log that it fails).
func TestExampleConfigDoesNotTrace(t *testing.T) {
	cfg, err := config.LoadFile("llm-prober.yml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tracing.OTLPEndpoint != "" {
		t.Errorf("the example exports spans to %s by default", cfg.Tracing.OTLPEndpoint)
	}
}
