package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/capacity/plan"
	"github.com/llm-prober/llm-prober/capacity/promsource"
	"github.com/llm-prober/llm-prober/cmd/llm-prober/internal/promflags"
	"github.com/llm-prober/llm-prober/cmd/llm-prober/internal/strictflag"
	"github.com/llm-prober/llm-prober/internal/textfmt"
)

// planFlags are the flags of `llm-prober plan`.
type planFlags struct {
	cmd            *kingpin.CmdClause
	src            *promsource.Flags
	kneeFile       string
	kneeRate       float64
	peak           string
	headroom       float64
	gpusPerReplica int
	timezone       string
	outputJSON     string
}

func newPlanCmd(app *kingpin.Application) *planFlags {
	p := &planFlags{}
	c := app.Command("plan", "Capacity plan from the traffic actually served: the served request rate and lengths over --window from Prometheus, "+
		"against the knee of one replica (bench --sweep), with bench's formula. Exit codes: 0 success; 1 Prometheus unreachable or no data; 2 a bad flag or file.")
	p.cmd = c
	p.src = promflags.Add(c)
	promflags.AddRateInterval(c, p.src)
	c.Flag("knee-file", "The knee from a `bench --sweep --output-json` file (its achieved rate; its workload is checked against the served one).").StringVar(&p.kneeFile)
	c.Flag("knee-rate", "The knee rate (req/s) of one replica, instead of --knee-file.").Float64Var(&p.kneeRate)
	c.Flag("peak", "Size for: max (the highest served rate), p99 (of the rates: ignores the worst 1 %, e.g. a retry storm) or busiest-hour (the typical day's peak: the busiest hour's mean daily peak).").
		Default("max").EnumVar(&p.peak, plan.PeakMax, plan.PeakP99, plan.PeakBusiestHour)
	c.Flag("headroom", "Spare capacity factor.").Default("2").Float64Var(&p.headroom)
	strictflag.Int(c.Flag("gpus-per-replica", "GPUs per server replica (tensor/pipeline parallel; a whole number).").Default("1"), &p.gpusPerReplica)
	c.Flag("timezone", "Time zone of the hours of the day (IANA name, e.g. Europe/Paris).").Default("UTC").StringVar(&p.timezone)
	c.Flag("output-json", "Write the plan and every number behind it to this JSON file.").StringVar(&p.outputJSON)
	return p
}

func (p *planFlags) run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return p.runTo(ctx, os.Stdout, os.Stderr)
}

func (p *planFlags) runTo(ctx context.Context, out, log io.Writer) int {
	out, log = textfmt.NewSafeWriter(out), textfmt.NewSafeWriter(log)
	fail := func(code int, err error) int {
		fmt.Fprintf(log, "llm-prober plan: %v\n", err)
		return code
	}
	var (
		knee *plan.Knee
		err  error
	)
	switch {
	case p.kneeFile != "" && p.kneeRate != 0:
		return fail(2, fmt.Errorf("give --knee-file or --knee-rate, not both"))
	case p.kneeFile != "":
		knee, err = plan.ReadKnee(p.kneeFile)
	case p.kneeRate != 0:
		knee, err = plan.KneeFromRate(p.kneeRate)
	default:
		err = fmt.Errorf("give the knee of one replica: --knee-file (a bench --sweep --output-json file) or --knee-rate")
	}
	if err != nil {
		return fail(2, err)
	}
	// Before Prometheus is asked: a bad flag is exit 2, not a query.
	if err := capacity.CheckSizing(p.headroom, p.gpusPerReplica); err != nil {
		return fail(2, err)
	}
	loc, err := time.LoadLocation(p.timezone)
	if err != nil {
		return fail(2, fmt.Errorf("--timezone %q: %w", p.timezone, err))
	}
	cfg, err := p.src.Config()
	if err != nil {
		return fail(2, err)
	}
	src, err := promsource.New(*cfg)
	if err != nil {
		return fail(2, err)
	}
	r, err := plan.Run(ctx, src, plan.Options{Knee: knee, Peak: p.peak, Headroom: p.headroom, GPUsPerReplica: p.gpusPerReplica, Location: loc})
	if errors.Is(err, capacity.ErrRefused) {
		return fail(2, err) // e.g. a knee far below the served peak: beyond range
	}
	if err != nil {
		return fail(1, err)
	}
	r.WriteText(out)
	if p.outputJSON != "" {
		if err := r.WriteJSON(p.outputJSON); err != nil {
			return fail(1, err)
		}
		fmt.Fprintf(log, "wrote %s\n", p.outputJSON)
	}
	return 0
}
