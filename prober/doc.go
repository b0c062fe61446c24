// Package prober owns the probe: one streaming request to an
// OpenAI-compatible server, its measurement (TTFT, ITL, TPOT, E2EL), the
// failure taxonomy, validators, SLO evaluation, the scheduler and the
// probe metrics.
//
// It may import config, backend, httpclient, prompt, internal/exposition
// and its own sub-packages (prober/stream, prober/rxstamp,
// prober/tracectx), which import none of the prober's packages: imports
// point one way (layers_test.go).
package prober
