// Package plan is `llm-prober plan`: a capacity plan from the traffic a
// server actually served, read from Prometheus (package promsource),
// against a knee measured by `llm-prober bench --sweep`, with bench's own
// formula (capacity.NewPlan).
package plan

import (
	"fmt"
	"math"

	"github.com/llm-prober/llm-prober/capacity"
	"github.com/llm-prober/llm-prober/capacity/kneefile"
)

// Knee is one replica's rate at the knee and the workload it was
// measured with (NaN lengths: unknown).
type Knee struct {
	Rate        float64 `json:"request_rate"`
	Source      string  `json:"source"`
	Offered     float64 `json:"offered_request_rate,omitempty"`
	PromptMean  float64 `json:"mean_prompt_tokens"`
	OutputMean  float64 `json:"mean_generation_tokens"`
	Workload    string  `json:"workload,omitempty"`
	GoodputGoal float64 `json:"goodput_percent,omitempty"`
}

// ReadKnee reads the knee of a sweep file with the daemon's reader
// (kneefile.Read): the achieved rate at the knee (completed req/s),
// as bench's own plan and the daemon's headroom use, and the workload and
// mean lengths of the point run there.
func ReadKnee(path string) (*Knee, error) {
	ck, err := kneefile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("--knee-file: %w", err)
	}
	if err := capacity.CheckKnee(ck.Rate); err != nil {
		return nil, fmt.Errorf("--knee-file %s: %w", path, err)
	}
	return &Knee{Rate: ck.Rate, Source: path, Offered: ck.Offered, PromptMean: ck.PromptMean, OutputMean: ck.OutputMean,
		Workload: ck.Workload, GoodputGoal: ck.GoodputPercent}, nil
}

// KneeFromRate is a knee given as a number: its workload is unknown.
func KneeFromRate(rate float64) (*Knee, error) {
	if err := capacity.CheckKnee(rate); err != nil {
		return nil, fmt.Errorf("--knee-rate: %w", err)
	}
	return &Knee{Rate: rate, Source: "--knee-rate", PromptMean: math.NaN(), OutputMean: math.NaN()}, nil
}
