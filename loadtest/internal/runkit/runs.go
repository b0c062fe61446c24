package runkit

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// BaseOptions is an open-loop run of the synthetic workload.
func BaseOptions(tg *config.Target, client *http.Client, in, out int) loadtest.Options {
	return loadtest.Options{Target: tg, API: config.APIChat, Client: client,
		Workload: workload.NewSynthetic(in, out, 0, 0, 1, nil), Burstiness: 1, Seed: 1, IgnoreEOS: true,
		Timeout: time.Minute}
}

// RunWorkload sends n requests of w to tg at once (an infinite rate).
func RunWorkload(t *testing.T, tg *config.Target, client *http.Client, w workload.Workload, n int) *loadtest.Run {
	t.Helper()
	opts := BaseOptions(tg, client, 0, 0)
	opts.Workload, opts.Rate, opts.NumPrompts = w, math.Inf(1), n
	run, err := loadtest.Execute(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
