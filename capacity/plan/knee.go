// Package plan is `llm-prober plan`: a capacity plan from the traffic a
// server actually served, read from Prometheus (package promsource),
// against a knee measured by `llm-prober bench --sweep`, with bench's own
// formula (loadtest.NewPlan).
package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
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

const maxKneeFile = 256 << 20

// sweepFile is what plan reads of a `bench --sweep --output-json` file.
type sweepFile struct {
	KneeGoodput *float64 `json:"knee_goodput_percent"`
	Offered     *float64 `json:"knee_request_rate"`
	Achieved    *float64 `json:"knee_achieved_request_rate"`
	Points      []struct {
		Kind        string          `json:"kind"`
		Rate        json.RawMessage `json:"request_rate"` // a number, or "inf"
		Completed   float64         `json:"completed"`
		TotalInput  float64         `json:"total_input_tokens"`
		TotalOutput float64         `json:"total_output_tokens"`
		Workload    string          `json:"llm_prober_workload"`
	} `json:"points"`
}

// ReadKnee reads the knee of a sweep file. The achieved rate at the knee
// (completed req/s) is the one used, as bench's own plan does: what a
// replica was seen to serve within the SLOs, not what was offered.
func ReadKnee(path string) (*Knee, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--knee-file: %w", err)
	}
	defer f.Close()
	// The decoder holds the whole document: bound it (a sweep file keeps
	// every request, tens of MiB for a long sweep).
	if st, err := f.Stat(); err == nil && st.Size() > maxKneeFile {
		return nil, fmt.Errorf("--knee-file %s: %d bytes, more than the %d MiB a sweep file may have", path, st.Size(), maxKneeFile>>20)
	}
	var sf sweepFile
	if err := json.NewDecoder(io.LimitReader(f, maxKneeFile)).Decode(&sf); err != nil {
		return nil, fmt.Errorf("--knee-file %s: not a bench --sweep --output-json file: %w", path, err)
	}
	if sf.KneeGoodput == nil {
		return nil, fmt.Errorf("--knee-file %s: no knee_goodput_percent: not a bench --sweep --output-json file", path)
	}
	k := &Knee{Source: path, GoodputGoal: *sf.KneeGoodput, PromptMean: math.NaN(), OutputMean: math.NaN()}
	switch {
	case sf.Achieved != nil:
		k.Rate = *sf.Achieved
	case sf.Offered != nil:
		k.Rate = *sf.Offered
	default:
		return nil, fmt.Errorf("--knee-file %s: the sweep found no knee (no rate kept %g%% of requests within the SLOs)", path, *sf.KneeGoodput)
	}
	if math.IsNaN(k.Rate) || math.IsInf(k.Rate, 0) || k.Rate <= 0 {
		return nil, fmt.Errorf("--knee-file %s: knee_achieved_request_rate %g is not a positive rate", path, k.Rate)
	}
	if sf.Offered != nil {
		k.Offered = *sf.Offered
		for _, p := range sf.Points {
			var r float64
			if json.Unmarshal(p.Rate, &r) != nil || r != *sf.Offered || p.Completed <= 0 {
				continue
			}
			k.PromptMean, k.OutputMean = p.TotalInput/p.Completed, p.TotalOutput/p.Completed
			k.Workload = p.Workload
			break
		}
	}
	return k, nil
}

// KneeFromRate is a knee given as a number: its workload is unknown.
func KneeFromRate(rate float64) (*Knee, error) {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate <= 0 {
		return nil, errors.New("--knee-rate must be a positive rate")
	}
	return &Knee{Rate: rate, Source: "--knee-rate", PromptMean: math.NaN(), OutputMean: math.NaN()}, nil
}
