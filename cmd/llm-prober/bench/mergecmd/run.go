package mergecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/llm-prober/llm-prober/cmd/llm-prober/bench/exitcode"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/merge"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// Config is one `llm-prober bench merge`.
type Config struct {
	Files          []string
	MaxClockOffset time.Duration // --max-clock-offset
	Timeout        time.Duration // --timeout: reading every file
	OutputJSON     string
	OutputCSV      string
	Report         string
	// A sweep merged from one sharded run per rate: the listed rates
	// (default: every rate among the files), --sweep-refine and
	// --knee-goodput, as bench --sweep --rates took them.
	Rates       string
	SweepRefine int
	KneeGoodput float64
}

// Run merges the shard files, prints the report of their union with
// the shards' clocks, and ends as the one run would have: the --fail-on
// and goodput the shards ran with decide (exitcode's codes).
func Run(ctx context.Context, mc *Config, out, log io.Writer) (int, error) {
	out, log = textfmt.NewSafeWriter(out), textfmt.NewSafeWriter(log)
	if mc.MaxClockOffset < 0 || mc.Timeout <= 0 {
		return exitcode.BadInput, errors.New("--max-clock-offset cannot be negative, --timeout must be positive")
	}
	if err := report.CheckHTMLPath(mc.Report); err != nil {
		return exitcode.BadInput, err
	}
	rctx, cancel := context.WithTimeout(ctx, mc.Timeout)
	defer cancel()
	groups, err := merge.GroupByRate(rctx, mc.Files)
	if err != nil {
		return exitcode.BadInput, err
	}
	if len(groups) > 1 || len(mc.Rates) > 0 {
		return runMergeSweep(rctx, mc, groups, out, log)
	}
	m, res, code, err := mergeRun(rctx, mc, mc.Files, log)
	if err != nil {
		return code, err
	}
	d := m.Shards[0].Decide
	report.WriteText(res.report, out)
	report.WriteUncertainty(res.report, out)
	report.WriteServer(&res.server, out, res.verdict)
	writeExtra(res, out)
	if mc.OutputJSON != "" {
		if err := writeMerged(rctx, m, res, mc.OutputJSON, ""); err != nil {
			return exitcode.Error, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.OutputJSON)
	}
	if mc.OutputCSV != "" {
		if err := writeCSV(rctx, m, mc.OutputCSV); err != nil {
			return exitcode.Error, fmt.Errorf("--output-csv: %w", err)
		}
		fmt.Fprintf(log, "wrote %s\n", mc.OutputCSV)
	}
	if mc.Report != "" {
		h := &report.HTMLReport{Runs: []*report.RunView{report.NewRunView("", m.Run, res.report, res.server, res.verdict)},
			Title: fmt.Sprintf("%s — %s (%d shards)", d.Model, m.Run.Opts.Workload.Describe(), len(m.Shards))}
		if err := report.WriteHTMLFile(mc.Report, h); err != nil {
			return exitcode.Error, err
		}
		fmt.Fprintf(log, "wrote %s\n", mc.Report)
	}
	if code := failOn(res.decide.Conds, res.report, log); code != 0 {
		return code, nil
	}
	if failing, why := res.report.Failing(); failing {
		return exitcode.Failed, errors.New(why)
	}
	return 0, nil
}

// result is one merged run with its analysis.
type result struct {
	decide  summary.Decide // the shards' --goodput, --percentiles and --fail-on
	report  *summary.Report
	server  serverwatch.ServerReport
	verdict summary.Verdict
	extra   *serverwatch.ExtraReport // shard 0's --extra-metrics-url
}

// mergeRun merges one run's shard files and judges the union as the one
// run would have been judged; on error, the exit code.
func mergeRun(ctx context.Context, mc *Config, files []string, log io.Writer) (*merge.Result, *result, int, error) {
	m, err := merge.Read(ctx, files, merge.Options{MaxOffset: mc.MaxClockOffset})
	if err != nil {
		if errors.As(err, new(merge.ShardError)) {
			return nil, nil, exitcode.Failed, err
		}
		return nil, nil, exitcode.BadInput, err
	}
	d := m.Shards[0].Decide
	dec, err := summary.ParseDecide(d.Goodput, d.Percentiles, d.FailOn)
	if err != nil {
		return nil, nil, exitcode.BadInput, fmt.Errorf("%s: %s: %w", m.Paths[0], merge.Key, err)
	}
	writeShards(m, log)
	res := &result{decide: dec, report: summary.Summarize(m.Run, dec.SLO, dec.Percentiles)}
	res.server = headServer(m)
	summary.AttachServer(&res.server, res.report)
	res.verdict = summary.Judge(res.report, &res.server)
	if raw, ok := m.Head["llm_prober_extra_metrics"]; ok {
		res.extra = new(serverwatch.ExtraReport)
		if json.Unmarshal(raw, res.extra) != nil {
			res.extra = nil
		}
	}
	return m, res, 0, nil
}

// writeExtra prints the run's extra metrics, if any.
func writeExtra(res *result, out io.Writer) {
	if res.extra != nil {
		report.WriteExtra(res.extra, out, "Extra metrics during the run")
	}
}

// failOn prints the --fail-on conditions that hold; exitcode.FailOn if
// any does.
func failOn(conds []summary.Condition, rep *summary.Report, log io.Writer) int {
	lines := summary.FailOn(conds, rep)
	for _, l := range lines {
		fmt.Fprintln(log, l)
	}
	if len(lines) > 0 {
		return exitcode.FailOn
	}
	return 0
}

// writeShards prints each shard's clock, start lag and send lag: the
// offsets are the merge's caveat (docs/bench-sharding.md).
func writeShards(m *merge.Result, log io.Writer) {
	fmt.Fprintf(log, "merged %d shards of the run started at %s\n", len(m.Shards), m.Shards[0].StartAt.UTC().Format(time.RFC3339Nano))
	for i, s := range m.Shards {
		fmt.Fprintf(log, "  shard %d/%d %s: clock %s, woke %v late, send lag p99 %.3g ms, max %.3g ms%s\n", s.Index, s.Count, m.Paths[i],
			s.Clock, time.Duration(s.StartLag).Round(time.Microsecond), s.SendLagP99, s.SendLagMax, scraperNote(s.Scraper))
	}
	if !m.Comparable {
		fmt.Fprintln(log, "NOT COMPARABLE: a shard's clock is unknown or off by more than 1 ms and --max-clock-offset 0 skipped the check: planned send times across shards may be shifted by it (each request's latency is not)")
	}
}

func scraperNote(s bool) string {
	if s {
		return " (scraped the server)"
	}
	return ""
}

// headServer is shard 0's server report (the one that scraped).
func headServer(m *merge.Result) serverwatch.ServerReport {
	var s serverwatch.ServerReport
	raw, ok := m.Head["llm_prober_server"]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return serverwatch.ServerReport{Err: "shard 0's file holds no readable server report"}
	}
	return s
}

// replay hands every shard's requests to add in the union's order, the
// order one process lists them (merge.Replay).
func replay(ctx context.Context, m *merge.Result, add func(*loadtest.Record, *prober.Result)) error {
	return merge.Replay(ctx, m, func(rec *loadtest.Record, itl []time.Duration, msg string) {
		r := &prober.Result{ITL: itl, Reason: rec.Reason}
		if msg != "" {
			r.Err = errors.New(msg)
		}
		add(rec, r)
	})
}

// writeCSV writes --output-csv: every request, a row each.
func writeCSV(ctx context.Context, m *merge.Result, path string) error {
	c, err := report.CreateCSV(path)
	if err != nil {
		return err
	}
	c.Rate = report.RateText(&m.Run.Opts)
	if err := replay(ctx, m, c.Add); err != nil {
		c.Close()
		return err
	}
	return c.Close()
}

// writeMerged writes the merged result file: the aggregate of the union
// and every shard's requests, in the order one process lists them.
// A sweep point's kind, if any, and bottleneck come first, as bench
// --sweep writes them.
func writeMerged(ctx context.Context, m *merge.Result, res *result, path, kind string) error {
	jo, err := resultfile.NewJSONOut()
	if err != nil {
		return err
	}
	defer jo.Close()
	if err := replay(ctx, m, jo.Add); err != nil {
		return err
	}
	d := m.Shards[0].Decide
	var head []summary.KV
	if kind != "" {
		head = []summary.KV{{Key: "kind", Value: kind}, {Key: "bottleneck", Value: res.verdict.Bottleneck}}
	}
	head = append(append(head, res.report.VLLMKeys()...),
		summary.KV{Key: "model_id", Value: d.Model},
		summary.KV{Key: "backend", Value: resultfile.Backend(m.Shards[0].Spec.API)},
		summary.KV{Key: "endpoint_type", Value: resultfile.Backend(m.Shards[0].Spec.API)},
		summary.KV{Key: "label", Value: resultfile.Label(d.Label)},
		summary.KV{Key: "llm_prober_server", Value: res.server},
		summary.KV{Key: "llm_prober_verdict", Value: res.verdict},
		summary.KV{Key: "llm_prober_merged_shards", Value: m.Shards},
		summary.KV{Key: "llm_prober_merge_comparable", Value: m.Comparable})
	if raw, ok := m.Head["llm_prober_metadata"]; ok {
		head = append(head, summary.KV{Key: "llm_prober_metadata", Value: raw})
	}
	return jo.Write(path, head)
}
