package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/llm-prober/llm-prober/capacity"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/capacity/promsource"
)

// What the plan is sized for (--peak).
const (
	PeakMax         = "max"          // the highest rate served in the window
	PeakP99         = "p99"          // the 99th percentile of the rates
	PeakBusiestHour = "busiest-hour" // the typical day's peak: the busiest hour's mean daily peak
)

// Options are plan's settings besides the source.
type Options struct {
	Knee           *Knee
	Peak           string
	Headroom       float64
	GPUsPerReplica int
	Location       *time.Location // hours of the day; nil: UTC
}

// Result is the plan and every number behind it (--output-json).
type Result struct {
	Prometheus    string   `json:"prometheus_url"`
	Selector      string   `json:"selector"`
	Targets       []string `json:"targets"`
	Probers       int      `json:"probers_per_target"`
	WindowSeconds float64  `json:"window_seconds"`
	WindowEnd     string   `json:"window_end"`
	History       float64  `json:"history_seconds"`
	Partial       bool     `json:"partial_window"`
	RateInterval  float64  `json:"rate_interval_seconds"`
	StepSeconds   float64  `json:"step_seconds"`
	Timezone      string   `json:"timezone"`

	MeanRate      float64               `json:"mean_request_rate"`
	DailyRequests float64               `json:"daily_requests"`
	PeakRate      float64               `json:"peak_request_rate"`
	PeakTime      string                `json:"peak_time"`
	P99Rate       float64               `json:"p99_request_rate"`
	Busiest       promsource.HourPeak   `json:"busiest_hour"`
	ByHour        []promsource.HourPeak `json:"by_hour"`

	PromptMean   Float   `json:"mean_prompt_tokens"`
	PromptP50    Float   `json:"median_prompt_tokens"`
	PromptP90    Float   `json:"p90_prompt_tokens"`
	OutputMean   Float   `json:"mean_generation_tokens"`
	OutputP50    Float   `json:"median_generation_tokens"`
	OutputP90    Float   `json:"p90_generation_tokens"`
	LengthsCount float64 `json:"requests_in_histograms"`

	Knee           kneeJSON `json:"knee"`
	SizedFor       string   `json:"sized_for"`
	Required       float64  `json:"required_request_rate"`
	PeakToAverage  float64  `json:"peak_to_average"`
	Headroom       float64  `json:"headroom"`
	GPUsPerReplica int      `json:"gpus_per_replica"`
	BaseReplicas   int      `json:"base_replicas"`
	Replicas       int      `json:"replicas"`
	GPUs           int      `json:"gpus"`
	Warnings       []string `json:"warnings"`

	plan *capacity.Plan
}

type kneeJSON struct {
	Rate       float64 `json:"request_rate"`
	Source     string  `json:"source"`
	Offered    float64 `json:"offered_request_rate,omitempty"`
	PromptMean Float   `json:"mean_prompt_tokens"`
	OutputMean Float   `json:"mean_generation_tokens"`
	Workload   string  `json:"workload,omitempty"`
}

// Float is a number that is null in JSON when unknown (NaN).
type Float float64

// MarshalJSON writes null for NaN or ±Inf.
func (f Float) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(f), 'g', -1, 64), nil
}

// materially is how far the served mean lengths may stray from the knee's
// before plan warns: a quarter either way moves the knee of most servers
// (prefill cost grows with the prompt, decode time with the output).
const materially = 1.25

// Run reads the served traffic from src and plans for it.
func Run(ctx context.Context, src *promsource.Source, o Options) (*Result, error) {
	loc := o.Location
	if loc == nil {
		loc = time.UTC
	}
	rates, err := src.ServedRates(ctx)
	if err != nil {
		return nil, err
	}
	r := &Result{Prometheus: src.URL(), Selector: src.Selector(), Targets: rates.Targets, Probers: rates.Probers,
		WindowSeconds: rates.Window.Seconds(), WindowEnd: rates.End.UTC().Format(time.RFC3339),
		History: rates.History().Seconds(), Partial: rates.Partial(), RateInterval: rates.RateInterval.Seconds(),
		StepSeconds: rates.Step.Seconds(), Timezone: loc.String(), SizedFor: o.Peak, Warnings: []string{}}
	r.MeanRate = rates.Mean()
	r.DailyRequests = r.MeanRate * 86400
	peak := rates.Max()
	r.PeakRate, r.PeakTime = peak.V, peak.T.In(loc).Format(time.RFC3339)
	r.P99Rate = rates.Quantile(0.99)
	r.ByHour = rates.ByHour(loc)
	r.Busiest = promsource.BusiestHour(r.ByHour)
	if r.MeanRate <= 0 || r.PeakRate <= 0 {
		return nil, fmt.Errorf("%w: the targets matching %s served no requests in the window (%s of history)", promsource.ErrNoData, src.Selector(), about(rates.History()))
	}
	if r.Partial {
		r.warn("only %s of history in the %s window: the peak and the daily volume are those of that history, not a full window", about(rates.History()), short(rates.Window))
	}
	if rates.Step > rates.RateInterval {
		r.warn("the %s window needs a step of %s, longer than the %s rates: a peak shorter than %s may fall between them; plan a shorter window or raise --rate-interval", short(rates.Window), short(rates.Step), short(rates.RateInterval), short(rates.Step))
	}
	if h := rates.History(); h < 24*time.Hour {
		r.warn("less than a day of history: the busiest hour of the day is that of %s, not of a typical day", about(h))
	}
	if r.P99Rate > 0 && r.PeakRate > 1.5*r.P99Rate {
		r.warn("the peak (%.3f req/s at %s) is %.1f× the p99 of the rates: a short burst (a retry storm?); --peak=p99 sizes for the rest", r.PeakRate, r.PeakTime, r.PeakRate/r.P99Rate)
	}
	if err := r.lengths(ctx, src); err != nil {
		return nil, err
	}

	switch o.Peak {
	case PeakMax, "":
		r.SizedFor, r.Required = PeakMax, r.PeakRate
	case PeakP99:
		r.Required = r.P99Rate
	case PeakBusiestHour:
		r.Required = r.Busiest.MeanPeak
	default:
		return nil, fmt.Errorf("--peak %q: want max, p99 or busiest-hour", o.Peak)
	}
	r.Required = max(r.Required, r.MeanRate)
	r.PeakToAverage = r.Required / r.MeanRate
	k := o.Knee
	r.Knee = kneeJSON{Rate: k.Rate, Source: k.Source, Offered: k.Offered, PromptMean: Float(k.PromptMean), OutputMean: Float(k.OutputMean), Workload: k.Workload}
	r.compareWorkload(k)
	p, err := capacity.NewPlan(k.Rate, r.DailyRequests, 0, r.PeakToAverage, o.Headroom, o.GPUsPerReplica)
	if err != nil {
		return nil, err
	}
	p.DailySource = fmt.Sprintf("served: mean %.3f req/s over %s of history × 86,400", r.MeanRate, about(rates.History()))
	p.PeakSource = r.peakSource()
	r.plan = p
	r.Headroom, r.GPUsPerReplica = p.Headroom, p.GPUsPerReplica
	r.BaseReplicas, r.Replicas, r.GPUs = p.BaseReplicas, p.Replicas, p.GPUs
	return r, nil
}

func (r *Result) peakSource() string {
	switch r.SizedFor {
	case PeakP99:
		return fmt.Sprintf("--peak=p99: p99 of the %s rates %.3f / mean %.3f", short(time.Duration(r.RateInterval*float64(time.Second))), r.P99Rate, r.MeanRate)
	case PeakBusiestHour:
		return fmt.Sprintf("--peak=busiest-hour: %02d:00 %s's mean daily peak %.3f / mean %.3f", r.Busiest.Hour, r.Timezone, r.Busiest.MeanPeak, r.MeanRate)
	}
	return fmt.Sprintf("--peak=max: highest %s rate %.3f / mean %.3f", short(time.Duration(r.RateInterval*float64(time.Second))), r.PeakRate, r.MeanRate)
}

// lengths reads the mean and quantiles of prompt and generation lengths;
// a backend without the histograms leaves them unknown, with a warning.
func (r *Result) lengths(ctx context.Context, src *promsource.Source) error {
	r.PromptMean, r.PromptP50, r.PromptP90 = Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
	r.OutputMean, r.OutputP50, r.OutputP90 = Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
	for _, m := range []struct {
		metric         string
		mean, p50, p90 *Float
	}{
		{promsource.PromptTokens, &r.PromptMean, &r.PromptP50, &r.PromptP90},
		{promsource.GenerationTokens, &r.OutputMean, &r.OutputP50, &r.OutputP90},
	} {
		h, err := src.Lengths(ctx, m.metric)
		if errors.Is(err, promsource.ErrNoData) {
			r.warn("no %s histogram for %s: the served lengths are unknown, so the knee's workload cannot be checked against them", m.metric, src.Selector())
			continue
		}
		if err != nil {
			return err
		}
		*m.mean = Float(h.Mean())
		r.LengthsCount = h.Count
		for _, q := range []struct {
			q  float64
			to *Float
		}{{0.5, m.p50}, {0.9, m.p90}} {
			v, err := src.Quantile(ctx, m.metric, q.q)
			if err != nil {
				return err
			}
			*q.to = Float(v)
		}
	}
	return nil
}

// compareWorkload warns when the served lengths differ materially from
// the knee's: the knee holds for the workload it was measured with.
func (r *Result) compareWorkload(k *Knee) {
	if math.IsNaN(k.PromptMean) {
		r.warn("the knee's workload is unknown (%s): it holds only for the workload it was measured with; check it against the served lengths above", k.Source)
		return
	}
	for _, c := range []struct {
		what         string
		served, knee float64
	}{{"prompt", float64(r.PromptMean), k.PromptMean}, {"generation", float64(r.OutputMean), k.OutputMean}} {
		if math.IsNaN(c.served) || c.knee <= 0 {
			continue
		}
		if ratio := c.served / c.knee; ratio > materially || ratio < 1/materially {
			r.warn("served %s lengths average %.0f tokens, the knee's workload %.0f (%.2f×): the knee holds for the workload it was measured with; re-run bench with this workload (bench --workload-from-prometheus) before trusting the replica count",
				c.what, c.served, c.knee, ratio)
		}
	}
}

func (r *Result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// short prints a duration as Prometheus does (2d4h, 5m).
func short(d time.Duration) string { return model.Duration(d.Round(time.Second)).String() }

// about prints a history's length to a precision a reader needs: the
// minute under an hour, ten minutes under a day, else the hour (steps
// need not align with the data: 1d23h59m12s is 2d).
func about(d time.Duration) string {
	switch {
	case d < time.Hour:
		return short(d.Round(time.Second))
	case d < 24*time.Hour:
		return short(d.Round(10 * time.Minute))
	}
	return short(d.Round(time.Hour))
}
