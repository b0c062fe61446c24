package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
)

// workload builds the requests: prompt lengths sized with the server's
// tokenizer when it has one, else calibrated from usage.
func (b *benchFlags) workload(ctx context.Context, client *http.Client, t *config.Target, log io.Writer) (loadtest.Workload, *loadtest.Sizing, error) {
	tk, err := loadtest.DetectTokenizer(ctx, client, t.URL, t.Model)
	if err != nil {
		return nil, nil, err
	}
	var z *loadtest.Sizing
	if tk != nil {
		if z, err = loadtest.SizeWithTokenizer(ctx, tk); err != nil {
			fmt.Fprintf(log, "tokenize endpoint unusable (%v); calibrating from usage\n", err)
			tk = nil
		}
	}
	if z == nil {
		if z, err = loadtest.SizeFromUsage(ctx, client, t, config.API(b.api)); err != nil {
			return nil, nil, err
		}
	}
	want := b.numPrompts + b.warmupRequests()
	if b.duration > 0 || b.sweep || b.rates != "" {
		// Runs of unknown length cycle through a pool: sizing every entry
		// of a 90,000-conversation file would take a tokenize call each.
		want = datasetPool
	}
	do := loadtest.DatasetOptions{Seed: b.seed, Want: want, Tok: tk, Sizing: z}
	switch b.dataset {
	case "sharegpt", "jsonl": // flags checked by checkWorkload
		z.Dataset = true
		if b.outTok > 0 && b.outTokSet {
			do.OutputTokens = b.outTok
		}
		var d *loadtest.Dataset
		if b.dataset == "sharegpt" {
			d, err = loadtest.LoadShareGPT(ctx, b.datasetPath, do)
		} else {
			d, err = loadtest.LoadJSONL(ctx, b.datasetPath, do)
		}
		return d, z, err
	}
	w := loadtest.NewSynthetic(b.inTok, b.outTok, b.prefixTok, b.rangeRatio, b.seed, z)
	if tk != nil {
		if err := z.Check(ctx, tk, w, 8); err != nil {
			return nil, nil, err
		}
	}
	return w, z, nil
}

// datasetPool is how many dataset entries a run of unknown length keeps.
const datasetPool = 10000

// warmupRequests is --warmup as a count (0 if it is a duration).
func (b *benchFlags) warmupRequests() int {
	n, err := strconv.Atoi(b.warmup)
	if err != nil {
		return 0
	}
	return n
}

// warmupSpec reads --warmup: a number of requests or a duration.
func (b *benchFlags) warmupSpec() (int, time.Duration, error) {
	if n, err := strconv.Atoi(b.warmup); err == nil && n >= 0 {
		return n, 0, nil
	}
	d, err := time.ParseDuration(b.warmup)
	if err != nil || d < 0 {
		return 0, 0, fmt.Errorf("--warmup %q is neither a number of requests nor a duration", b.warmup)
	}
	return 0, d, nil
}

// parseRate reads a rate: a positive number or inf.
func parseRate(s string) (float64, error) {
	if strings.EqualFold(s, "inf") {
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || math.IsNaN(v) {
		return 0, fmt.Errorf("rate %q is not a positive number or inf", s)
	}
	return v, nil
}

// parsePercentiles reads "50,90,99.9".
func parsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v >= 100 {
			return nil, fmt.Errorf("--percentiles: %q is not in (0, 100)", f)
		}
		out = append(out, v)
	}
	return out, nil
}
