package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/workload"
	"github.com/llm-prober/llm-prober/prompt"
)

// workload builds the requests: prompt lengths sized with the server's
// tokenizer when it has one, else calibrated from usage; a synthetic
// workload whose largest request cannot fit the server's context is
// refused before any load.
func (b *Config) workload(ctx context.Context, client *http.Client, t *config.Target, log io.Writer) (workload.Workload, *workload.Sizing, error) {
	tk := &prompt.Tokenizer{Client: client, BaseURL: t.URL, Redacted: t.RedactedURL(), Model: t.Model,
		Dialects: prompt.Dialects(t.Backend), Timeout: min(b.Timeout, prompt.DefaultTimeout)}
	synthetic := b.Dataset == "random" || (b.Dataset == "conversations" && b.DatasetPath == "")
	var limit int
	var source string
	if synthetic || b.Dataset == "trace" {
		limit, source = tk.ContextSize(ctx)
	}
	if synthetic {
		if err := b.fitContext(limit, source, 0); err != nil {
			return nil, nil, err
		}
	}
	z, err := workload.SizeWithTokenizer(ctx, tk)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !errors.Is(err, prompt.ErrNoTokenizer) {
			fmt.Fprintf(log, "tokenize endpoint unusable (%v); calibrating from usage\n", err)
		}
		tk = nil
		if z, err = workload.SizeFromUsage(ctx, client, t, config.API(b.API), b.InputTokens, b.Timeout); err != nil {
			return nil, nil, err
		}
	}
	if z.Method == "tokenize" && config.API(b.API) != config.APICompletions {
		// /tokenize of plain text leaves the chat template out; a request
		// that does not fit is truncated by some servers, not refused.
		if err := z.MeasureTemplate(ctx, tk, client, t, b.Timeout); err != nil {
			return nil, nil, err
		}
		if z.Template == 0 && strings.HasPrefix(z.TemplateSource, "unknown") {
			fmt.Fprintf(log, "warning: the chat template's tokens are %s; the context check counts none\n", z.TemplateSource)
		}
	}
	if synthetic {
		if err := b.fitContext(limit, source, z.Overhead+z.Template); err != nil {
			return nil, nil, err
		}
		z.Context, z.ContextSource = limit, source
	}
	want := b.NumPrompts + b.warmupRequests()
	if b.Duration > 0 || b.Sweep || b.Rates != "" {
		// Runs of unknown length cycle through a pool: sizing every entry
		// of a 90,000-conversation file would take a tokenize call each.
		want = datasetPool
	}
	do := workload.DatasetOptions{Seed: b.Seed, Want: want, Tok: tk, Sizing: z}
	switch b.Dataset {
	case "sharegpt", "jsonl": // flags checked by checkWorkload
		z.Dataset = true
		if b.OutputTokens > 0 && b.OutputTokensSet {
			do.OutputTokens = b.OutputTokens
		}
		var d *workload.Dataset
		if b.Dataset == "sharegpt" {
			d, err = workload.LoadShareGPT(ctx, b.DatasetPath, do)
		} else {
			d, err = workload.LoadJSONL(ctx, b.DatasetPath, do)
		}
		return d, z, fileError(ctx, err, b.DatasetPath)
	case "trace":
		return b.Shape.trace(ctx, b.DatasetPath, b.Seed, tk, z, limit, source)
	case "conversations":
		if b.OutputTokens > 0 && b.OutputTokensSet {
			do.OutputTokens = b.OutputTokens
		}
		return b.Shape.conversations(ctx, b, do, z)
	}
	w := workload.NewSynthetic(b.InputTokens, b.OutputTokens, b.PrefixTokens, b.RangeRatio, b.Seed, z)
	if dw := b.Derive.derived; dw != nil {
		w = workload.NewSyntheticFrom(dw, b.PrefixTokens, b.Seed, z)
		if limit > 0 {
			w.LimitContext(limit - z.Overhead - z.Template)
		}
	}
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
func (b *Config) fitContext(limit int, source string, overhead int) error {
	in, out := b.PrefixTokens+workload.SpreadMax(b.InputTokens, b.RangeRatio), workload.SpreadMax(b.OutputTokens, b.RangeRatio)
	if limit <= 0 || in+out+overhead <= limit {
		if err := b.Shape.fitHistory(b.Dataset, in, out, overhead, limit, source); err != nil {
			return err
		}
		return nil
	}
	if b.Derive.derived != nil {
		// The served lengths fit the server; longer draws (from the top
		// bucket's extrapolation) are clipped to its context instead.
		if b.PrefixTokens+1+overhead >= limit {
			return fmt.Errorf("the %d-token shared prefix does not fit the server's context of %d tokens (%s): lower --prefix-tokens", b.PrefixTokens, limit, source)
		}
		return nil
	}
	return fmt.Errorf("--input-tokens %d + --output-tokens %d do not fit the server's context of %d tokens (%s): "+
		"the largest request needs %d (prompt %d, output %d, %d the server adds: BOS and chat template); lower them, or give the server a larger context",
		b.InputTokens, b.OutputTokens, limit, source, in+out+overhead, in, out, overhead)
}

// datasetPool is how many dataset entries a run of unknown length keeps.
const datasetPool = 10000

// warmupRequests is --warmup as a count (0 if it is a duration).
func (b *Config) warmupRequests() int {
	n, err := strconv.Atoi(b.Warmup)
	if err != nil {
		return 0
	}
	return n
}

// warmupSpec reads --warmup: a number of requests or a duration.
func (b *Config) warmupSpec() (int, time.Duration, error) {
	if n, err := strconv.Atoi(b.Warmup); err == nil && n >= 0 {
		return n, 0, nil
	}
	d, err := time.ParseDuration(b.Warmup)
	if err != nil || d < 0 {
		return 0, 0, fmt.Errorf("--warmup %q is neither a number of requests nor a duration", b.Warmup)
	}
	return 0, d, nil
}
