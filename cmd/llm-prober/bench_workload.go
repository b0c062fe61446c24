package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prompt"
)

// workload builds the requests: prompt lengths sized with the server's
// tokenizer when it has one, else calibrated from usage; a synthetic
// workload whose largest request cannot fit the server's context is
// refused before any load.
func (b *benchFlags) workload(ctx context.Context, client *http.Client, t *config.Target, log io.Writer) (loadtest.Workload, *loadtest.Sizing, error) {
	tk := &prompt.Tokenizer{Client: client, BaseURL: t.URL, Redacted: t.RedactedURL(), Model: t.Model,
		Dialects: prompt.Dialects(t.Backend), Timeout: min(b.timeout, prompt.DefaultTimeout)}
	synthetic := b.dataset == "random" || (b.dataset == "conversations" && b.datasetPath == "")
	var limit int
	var source string
	if synthetic || b.dataset == "trace" {
		limit, source = tk.ContextSize(ctx)
	}
	if synthetic {
		if err := b.fitContext(limit, source, 0); err != nil {
			return nil, nil, err
		}
	}
	z, err := loadtest.SizeWithTokenizer(ctx, tk)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !errors.Is(err, prompt.ErrNoTokenizer) {
			fmt.Fprintf(log, "tokenize endpoint unusable (%v); calibrating from usage\n", err)
		}
		tk = nil
		if z, err = loadtest.SizeFromUsage(ctx, client, t, config.API(b.api), b.inTok, b.timeout); err != nil {
			return nil, nil, err
		}
	}
	if synthetic {
		if err := b.fitContext(limit, source, z.Overhead); err != nil {
			return nil, nil, err
		}
		z.Context, z.ContextSource = limit, source
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
	case "trace":
		return b.shape.trace(ctx, b.datasetPath, b.seed, tk, z, limit, source)
	case "conversations":
		if b.outTok > 0 && b.outTokSet {
			do.OutputTokens = b.outTok
		}
		return b.shape.conversations(ctx, b, do, z)
	}
	w := loadtest.NewSynthetic(b.inTok, b.outTok, b.prefixTok, b.rangeRatio, b.seed, z)
	if tk != nil {
		if err := z.Check(ctx, tk, w, 8); err != nil {
			return nil, nil, err
		}
	}
	return w, z, nil
}

// fitContext refuses flags whose largest synthetic request (prefix,
// prompt and output at their --range-ratio maximum, plus the overhead the
// server adds to a prompt) exceeds the server's context, naming it.
func (b *benchFlags) fitContext(limit int, source string, overhead int) error {
	in, out := b.prefixTok+loadtest.SpreadMax(b.inTok, b.rangeRatio), loadtest.SpreadMax(b.outTok, b.rangeRatio)
	if limit <= 0 || in+out+overhead <= limit {
		if err := b.shape.fitHistory(b.dataset, in, out, overhead, limit, source); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("--input-tokens %d + --output-tokens %d do not fit the server's context of %d tokens (%s): "+
		"the largest request needs %d (prompt %d, output %d, %d the server adds); lower them, or give the server a larger context",
		b.inTok, b.outTok, limit, source, in+out+overhead, in, out, overhead)
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
