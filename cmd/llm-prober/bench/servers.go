package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/cfgsweep"
	"github.com/llm-prober/llm-prober/loadtest/report"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// runServerSweep runs a configuration sweep: per configuration, a server
// started (or applied), a rate sweep to its knee, a row; then the table
// across configurations, its JSON and HTML.
func runServerSweep(ctx context.Context, b *Config, out, log io.Writer) (int, error) {
	out, log = textfmt.NewSafeWriter(out), textfmt.NewSafeWriter(log)
	o, err := b.serverSweepOptions(ctx, log)
	if err != nil {
		return ExitBadInput, err
	}
	if b.Servers.DryRun {
		o.DryRun(out)
		return 0, nil
	}
	o.Measure = func(ctx context.Context, c cfgsweep.Configuration, url string) (*sweep.Sweep, error) {
		fmt.Fprintf(out, "\n%s\n", textfmt.Center(" Configuration "+c.Label()+" ", '#'))
		one := *b
		one.Servers = ServerSweepConfig{}
		one.URL, one.ConfigFile, one.Target = url, "", ""
		one.OutputJSON, one.Report, one.Curve, one.OutputCSV = "", "", "", ""
		var got *sweep.Sweep
		one.sweepHook = func(sw *sweep.Sweep) { got = sw }
		code, err := Run(ctx, &one, out, log)
		if err != nil && got == nil {
			return nil, err
		}
		if code == ExitBadInput {
			return nil, err
		}
		return got, err
	}
	if b.OutputJSON != "" {
		o.Saved = func(r *cfgsweep.Result) error { return cfgsweep.WriteFile(b.OutputJSON, r) }
		// The servers' whole logs go beside it (configs.server-1.log).
		o.LogFiles = strings.TrimSuffix(b.OutputJSON, filepath.Ext(b.OutputJSON))
	}
	res, runErr := cfgsweep.Run(ctx, *o)
	if res != nil && len(res.Rows) > 0 {
		fmt.Fprintln(out)
		report.WriteConfigSweep(res, out)
	}
	if res != nil && b.OutputJSON != "" {
		if err := cfgsweep.WriteFile(b.OutputJSON, res); err != nil {
			return ExitError, errors.Join(runErr, err)
		}
		fmt.Fprintf(log, "wrote %s\n", b.OutputJSON)
	}
	if res != nil && b.Report != "" && len(res.Rows) > 0 {
		if err := writeServerSweepHTML(b.Report, res); err != nil {
			return ExitError, errors.Join(runErr, err)
		}
		fmt.Fprintf(log, "wrote %s\n", b.Report)
	}
	switch {
	case ctx.Err() != nil:
		return ExitError, errors.New("interrupted: the started server was stopped; the finished configurations are kept (--resume runs the rest)")
	case runErr != nil:
		return ExitError, runErr
	case res.Best == nil:
		return ExitFailed, errors.New("no configuration reached a knee")
	}
	return 0, nil
}

// serverSweepOptions checks every flag of a configuration sweep, and the
// rate sweep's, before any server starts.
func (b *Config) serverSweepOptions(ctx context.Context, log io.Writer) (*cfgsweep.Options, error) {
	s := &b.Servers
	switch {
	case s.Cmd != "" && s.ApplyCmd != "":
		return nil, errors.New("--server-cmd and --server-apply-cmd are exclusive")
	case !b.Sweep && b.Rates == "":
		return nil, errors.New("a configuration sweep measures each configuration's knee: add --sweep (or --rates)")
	case s.ApplyCmd != "" && b.URL == "":
		return nil, errors.New("--server-apply-cmd needs --url, the server it reconfigures")
	case b.ConfigFile != "" || b.Target != "":
		return nil, errors.New("--config.file and --target do not go with --server-cmd: the URL is the started server's (--url, with {port})")
	case b.NumRuns > 1, b.KneeRate > 0, b.Curve != "", b.OutputCSV != "", len(b.FailOn) > 0:
		return nil, errors.New("--num-runs, --knee-rate, --curve, --output-csv and --fail-on do not go with a configuration sweep (--report draws every configuration's curve)")
	case s.Resume && b.OutputJSON == "":
		return nil, errors.New("--resume reads the rows already run from --output-json: give it")
	case s.ReadyTimeout <= 0 || s.StopGrace <= 0:
		return nil, errors.New("--server-ready-timeout and --server-stop-grace must be positive")
	}
	grid, err := cfgsweep.ParseGrid(s.Params)
	if err != nil {
		return nil, err
	}
	var list []cfgsweep.Configuration
	if s.ConfigFile != "" {
		if list, err = cfgsweep.ReadFile(s.ConfigFile); err != nil {
			return nil, err
		}
	}
	cs, err := cfgsweep.Cross(list, grid)
	if err != nil {
		return nil, err
	}
	o := &cfgsweep.Options{Configs: cs, URL: strings.TrimSuffix(b.URL, "/"), ReadyTimeout: s.ReadyTimeout, StopGrace: s.StopGrace,
		KneeGoodput: b.KneeGoodput, TokensPerRequest: b.InputTokens + b.OutputTokens, Log: log,
		Plan: cfgsweep.Plan{DailyRequests: b.DailyRequests, PeakRPS: b.PeakRPS, PeakToAverage: b.PeakToAverage, Headroom: b.Headroom, GPUsPerReplica: b.GPUsPerReplica}}
	if o.URL == "" {
		o.URL = "http://127.0.0.1:{port}"
	}
	if s.Cmd != "" {
		o.Server, err = cfgsweep.ParseTemplate("--server-cmd", s.Cmd, s.Shell)
	} else {
		o.Apply, err = cfgsweep.ParseTemplate("--server-apply-cmd", s.ApplyCmd, s.Shell)
	}
	if err != nil {
		return nil, err
	}
	// The rate sweep's own flags, checked as its run will (on a stand-in
	// URL: no server runs yet).
	probe := *b
	probe.Servers, probe.URL = ServerSweepConfig{}, "http://127.0.0.1"
	if probe.Model == "" {
		probe.Model = "stand-in"
	}
	env := &benchEnv{b: &probe, out: io.Discard, log: io.Discard}
	if err := env.parseFlags(); err != nil {
		return nil, err
	}
	if err := probe.checkReport(); err != nil {
		return nil, err
	}
	if _, o.Client, err = probe.benchTarget(ctx); err != nil {
		return nil, err
	}
	if s.Resume {
		if o.Previous, err = cfgsweep.ReadResult(b.OutputJSON); err != nil {
			return nil, err
		}
	}
	return o, o.Check()
}

// writeServerSweepHTML writes --report: the table and every curve.
func writeServerSweepHTML(path string, res *cfgsweep.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(report.WriteConfigSweepHTML(res, f), f.Close())
}
