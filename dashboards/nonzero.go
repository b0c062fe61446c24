package dashboards

// noDrafts is what a speculative-decoding panel says instead of "No data":
// the server exports no draft counters, or proposed no drafts lately.
const noDrafts = "The server does not draft: no speculative-decoding counters, or no drafts in the interval (vLLM without --speculative-config, or a backend that does not export them)"

// nonZero keeps the series of a rate expression whose counter grew in the
// dashboard range, so that the legend lists only reasons that happened
// (a counter pre-created at 0 for every reason would otherwise draw flat
// zero lines).
func nonZero(rateExpr, counter, by string) string {
	return e(rateExpr + `
and on (` + by + `) (sum by (` + by + `) (increase(` + counter + `{SEL}[$__range])) > 0)`)
}

// drafting keeps a speculative-decoding ratio only where the server drafted
// in the interval: counters that exist but stand still give 0/0 = NaN,
// which would draw as NaN instead of the panel's noDrafts text.
func drafting(ratio, counter string) string {
	return "(" + ratio + ")\n" + e(`and on (target, model) (sum by (target, model) (rate(`+counter+`{SEL}[$__rate_interval])) > 0)`)
}
