package prober

// RunOptions are optional per-probe settings for RunWithOptions.
type RunOptions struct {
	// Trace, if set, is called at each phase of the probe with a message
	// and key/value pairs (go-kit style), for /probe?debug=true. It never
	// receives request headers or the target's credentials.
	Trace func(msg string, keyvals ...any)
	// Profile keeps what sizing a prompt_tokens prompt learned, from
	// probe to probe of one (target, module); nil sizes it afresh.
	Profile *PromptProfile
	// CloseConnection closes the probe's connection as it ends. The
	// scheduler sets it when the target's next probe comes after the
	// keep-alive timeout: the idle connection would be closed unused, and
	// meanwhile it holds a socket, two goroutines, buffers and a connection
	// tracker (about 20 KB each, 1,700 of them at 10,000 targets).
	CloseConnection bool
}

func (r *Result) tracef(msg string, keyvals ...any) {
	if r.trace != nil {
		r.trace(msg, keyvals...)
	}
}

// traceEnd logs the outcome of a completed stream.
func (r *Result) traceEnd() {
	if r.trace == nil {
		return
	}
	r.trace("stream ended", "elapsed", r.E2EL, "content_chunks", r.ContentChunks,
		"output_tokens", r.OutputTokens, "usage_reported", r.UsageReported,
		"prompt_tokens", r.PromptTokens, "finish_reason", r.FinishReason)
	switch {
	case !r.Success():
		r.trace("probe failed", "reason", r.Reason, "err", r.Err)
	case len(r.SLOViolations) > 0:
		r.trace("probe succeeded but missed SLOs", "slo", r.SLOViolations, "ttft", r.TTFT, "tpot", r.TPOT, "max_itl", r.MaxITL)
	default:
		r.trace("probe succeeded", "ttft", r.TTFT, "tpot", r.TPOT, "e2el", r.E2EL, "max_itl", r.MaxITL)
	}
}
