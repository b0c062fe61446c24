package collector

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// goldenCases are the recorded expositions (testdata/<fixture>.prom) and
// the backend the target names; TestEveryBackendHasAFixture wants one per
// backend with a mapping.
var goldenCases = []struct {
	fixture string
	backend config.Backend
}{
	{"vllm-v1-assembled", backend.Auto},
	{"vllm-sim", backend.Auto},
	{"vllm-legacy", backend.Auto},
	{"vllm-ray", backend.Auto},
	{"llamacpp", backend.Auto},
	{"sglang", backend.Auto},
	{"tgi", backend.Auto},
	{"trtllm-serve", backend.Auto},
	{"triton-trtllm", backend.TRTLLM},
}

// Each fixture is served over HTTP, scraped once, and our whole output
// (minus wall-clock gauges) is compared with testdata/<fixture>.golden.
func TestGoldenFixtures(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.fixture, func(t *testing.T) {
			srv := serveFile(t, c.fixture+".prom")
			m, reg := newTestManager(t)
			tg := target("t1", srv.URL)
			tg.Backend = c.backend
			m.Apply([]*config.Target{tg})
			waitScrapes(t, m, "t1", 1)
			compareGolden(t, reg, c.fixture)
			problems, err := testutil.GatherAndLint(reg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("lint: %s: %s", p.Metric, p.Text)
			}
		})
	}
}
