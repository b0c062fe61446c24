package cfgsweep

import (
	"fmt"
	"strings"
)

// Best names the configuration to run and why.
type Best struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Why   string `json:"why"`
}

// choose picks among the rows with a knee: with a demand, the fewest GPUs
// for it (ties: the higher knee); without, the highest knee per GPU
// (every configuration has --gpus-per-replica). A runner-up whose knee's
// interval overlaps the best's (more than at an end) is named: the sweep did not tell them apart.
func choose(rows []Row, plan Plan, kneeGoodput float64) *Best {
	per := max(plan.GPUsPerReplica, 1)
	better := func(a, b *Row) bool {
		if plan.demand() && a.GPUs != b.GPUs {
			return a.GPUs > 0 && (b.GPUs == 0 || a.GPUs < b.GPUs)
		}
		return a.KneeRate > b.KneeRate
	}
	var best, second *Row
	for i := range rows {
		r := &rows[i]
		if r.Status != StatusOK {
			continue
		}
		switch {
		case best == nil || better(r, best):
			best, second = r, best
		case second == nil || better(r, second):
			second = r
		}
	}
	if best == nil {
		return nil
	}
	label := best.Name
	if label == "" {
		label = Configuration{Params: best.Params}.Label()
	}
	var why strings.Builder
	if plan.demand() {
		fmt.Fprintf(&why, "the fewest GPUs for the plan's demand: %d (%d replicas), knee %.2f req/s", best.GPUs, best.Replicas, best.KneeRate)
	} else {
		fmt.Fprintf(&why, "the highest knee per GPU: %.2f req/s per replica of %d GPU(s), %.3f req/s per GPU", best.KneeRate, per, best.KneeRate/float64(per))
	}
	if best.KneeHigh > 0 {
		fmt.Fprintf(&why, " (offered %.2f, 95%% interval %.2f–%.2f)", best.KneeOffered, best.KneeLow, best.KneeHigh)
	}
	fmt.Fprintf(&why, ", at least %g%% of requests meeting every SLO at its knee", kneeGoodput)
	if second != nil {
		sl := second.Name
		if sl == "" {
			sl = Configuration{Params: second.Params}.Label()
		}
		fmt.Fprintf(&why, "; next: %s at %.2f req/s", sl, second.KneeRate)
		if plan.demand() {
			fmt.Fprintf(&why, ", %d GPUs", second.GPUs)
		}
		if best.KneeHigh > 0 && second.KneeHigh > 0 && second.KneeHigh > best.KneeLow && best.KneeHigh > second.KneeLow {
			why.WriteString(" — their knees' intervals overlap: this sweep does not tell the two apart")
		}
	}
	return &Best{Key: best.Key, Label: label, Why: why.String()}
}
