package collector

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/llm-prober/llm-prober/config"
)

// Each fixture is served over HTTP, scraped once, and our whole output
// (minus wall-clock gauges) is compared with testdata/<fixture>.golden.
func TestGoldenFixtures(t *testing.T) {
	cases := []struct {
		fixture string
		backend config.Backend
	}{
		{"vllm-v1-assembled", config.BackendAuto},
		{"vllm-sim", config.BackendAuto},
		{"vllm-legacy", config.BackendAuto},
		{"vllm-ray", config.BackendAuto},
		{"llamacpp", config.BackendAuto},
		{"sglang", config.BackendAuto},
		{"tgi", config.BackendAuto},
		{"trtllm-serve", config.BackendAuto},
		{"triton-trtllm", config.BackendTRTLLM},
	}
	for _, c := range cases {
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
