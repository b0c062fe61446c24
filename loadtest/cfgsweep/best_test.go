package cfgsweep

import (
	"strings"
	"testing"
)

func okRow(name string, knee, lo, hi float64, gpus int) Row {
	return Row{Name: name, Key: name + ":", Status: StatusOK, KneeRate: knee, KneeOffered: knee, KneeLow: lo, KneeHigh: hi, GPUs: gpus, Replicas: gpus}
}

// With a demand the fewest GPUs win (ties: the higher knee); without,
// the highest knee; failed rows never; overlapping intervals are said.
func TestChooseBest(t *testing.T) {
	rows := []Row{okRow("a", 10, 9, 11, 4), okRow("b", 12, 10.5, 13, 4), okRow("c", 30, 28, 32, 2),
		{Name: "d", Status: StatusFailed}, {Name: "e", Status: StatusLowerBound, LowerBound: 100}}
	b := choose(rows, Plan{PeakRPS: 10}, 99)
	if b == nil || b.Label != "c" || !strings.Contains(b.Why, "fewest GPUs for the plan's demand: 2") || !strings.Contains(b.Why, "next: b at 12.00 req/s, 4 GPUs") ||
		strings.Contains(b.Why, "overlap") || !strings.Contains(b.Why, "at least 99% of requests meeting every SLO") {
		t.Errorf("with a demand: %+v", b)
	}
	b = choose(rows[:2], Plan{GPUsPerReplica: 2}, 99)
	if b == nil || b.Label != "b" || !strings.Contains(b.Why, "highest knee per GPU: 12.00 req/s per replica of 2 GPU(s), 6.000 req/s per GPU") ||
		!strings.Contains(b.Why, "their knees' intervals overlap") {
		t.Errorf("without: %+v", b)
	}
	// Intervals that only touch are told apart.
	if b = choose([]Row{okRow("x", 10, 10, 100, 0), okRow("y", 100, 100, 800, 0)}, Plan{}, 90); b.Label != "y" || strings.Contains(b.Why, "overlap") {
		t.Errorf("touching: %+v", b)
	}
	if b = choose(rows[3:], Plan{}, 99); b != nil {
		t.Errorf("no knee, yet %+v", b)
	}
}
