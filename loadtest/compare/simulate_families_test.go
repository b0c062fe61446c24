package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/resultfile"
	"github.com/llm-prober/llm-prober/loadtest/stats"
)

// simFile is one run's result file as compare reads it: n requests in
// time order, each with its TTFT (simRun's model), 10 inter-token gaps
// of 20 ms · E_i · exp(A_i) · exp(0.2·ε) (the same host level), its TPOT
// and mean ITL (the gaps' mean), its worst gap and E2EL (TTFT plus the
// gaps), every latency times slow (1: the base configuration).
func simFile(rng *rand.Rand, n int, slow float64) *resultfile.RunFile {
	rf := &resultfile.RunFile{Measured: n, Keys: map[string]any{}}
	h := newHostLoad(rng)
	for range n {
		level := slow * h.next(rng)
		ttft := 100 * level * math.Exp(0.3*rng.NormFloat64())
		var sum, worst float64
		for range 10 {
			g := 20 * level * math.Exp(0.2*rng.NormFloat64())
			rf.Gaps = append(rf.Gaps, float32(g))
			sum, worst = sum+g, max(worst, g)
		}
		rf.GapCounts = append(rf.GapCounts, 10)
		rf.TTFT, rf.E2EL = append(rf.TTFT, ttft), append(rf.E2EL, ttft+sum)
		rf.TPOT, rf.ITLMean, rf.MaxITL = append(rf.TPOT, sum/10), append(rf.ITLMean, sum/10), append(rf.MaxITL, worst)
	}
	// The run's ITL rows are over every gap, as bench writes them.
	gaps := make([]float64, len(rf.Gaps))
	for i, g := range rf.Gaps {
		gaps[i] = float64(g)
	}
	slices.Sort(gaps)
	rf.Keys["mean_itl_ms"], _ = stats.MeanStd(gaps)
	for _, p := range []float64{50, 90, 99} {
		rf.Keys[fmt.Sprintf("p%g_itl_ms", p)] = stats.QuantileSorted(gaps, p)
	}
	return rf
}

// gateKeys are the percentile rows of every latency family.
func gateKeys() []string {
	var ks []string
	for _, f := range []string{"ttft", "tpot", "itl", "e2el", "max_itl"} {
		for _, s := range []string{"mean", "p50", "p90", "p99"} {
			ks = append(ks, s+"_"+f+"_ms")
		}
	}
	return ks
}

// (b) Identical configurations, single runs of 400 requests, no drift:
// each latency row's gate (--max-regression KEY:0%) fails at most at
// alpha (within 2 binomial SE); how often runs 20 % slower are caught is
// logged (a tail of 400 correlated requests pins down little: p99's
// upper end is mostly unbounded, so p99 gates rarely fire at that size).
func TestSimulatedGateFamilies(t *testing.T) {
	skipUnderRace(t)
	const pairs, n, alpha = 300, 400, 0.05
	keys := gateKeys()
	ts := zeroThresholds(t, keys)
	rng := rand.New(rand.NewPCG(23, 31))
	alarms, caught := make([]int, len(keys)), make([]int, len(keys))
	for range pairs {
		same := Compare(simFile(rng, n, 1), simFile(rng, n, 1), alpha, ts)
		slower := Compare(simFile(rng, n, 1), simFile(rng, n, 1.2), alpha, ts)
		for i, k := range keys {
			alarms[i] += b2i(same.Row(k).Regression)
			caught[i] += b2i(slower.Row(k).Regression)
		}
	}
	bound := alpha + 2*binomialSE(alpha, pairs)
	for i, k := range keys {
		t.Logf("%-16s identical configurations failed the gate in %3d of %d pairs (%4.1f%%); 20%% slower caught in %3d (%5.1f%%)",
			k, alarms[i], pairs, 100*float64(alarms[i])/pairs, caught[i], 100*float64(caught[i])/pairs)
		if float64(alarms[i])/pairs > bound {
			t.Errorf("%s: false-alarm rate %d/%d above alpha %g + 2 SE", k, alarms[i], pairs, alpha)
		}
	}
}

// (b) Power where the runs are long enough to pin the tail: 2,000
// requests a run, the new configuration 20 % slower.
func TestSimulatedGatePower(t *testing.T) {
	skipUnderRace(t)
	const pairs, n, alpha = 60, 2000, 0.05
	keys := []string{"p50_ttft_ms", "p90_ttft_ms", "p99_ttft_ms", "p90_tpot_ms", "p99_tpot_ms", "p90_itl_ms", "p99_itl_ms", "p90_e2el_ms", "p99_e2el_ms", "p90_max_itl_ms", "p99_max_itl_ms"}
	ts := zeroThresholds(t, keys)
	rng := rand.New(rand.NewPCG(29, 31))
	caught := make([]int, len(keys))
	for range pairs {
		slower := Compare(simFile(rng, n, 1), simFile(rng, n, 1.2), alpha, ts)
		for i, k := range keys {
			caught[i] += b2i(slower.Row(k).Regression)
		}
	}
	for i, k := range keys {
		t.Logf("%-16s runs of %d, 20%% slower: caught in %2d of %d pairs (%5.1f%%)", k, n, caught[i], pairs, 100*float64(caught[i])/pairs)
	}
	if caught[0] < pairs*9/10 || caught[1] < pairs/2 {
		t.Errorf("20%% slower: p50 TTFT caught in %d of %d pairs, p90 in %d", caught[0], pairs, caught[1])
	}
}

// zeroThresholds gates every key at 0 %: any significant worsening fails.
func zeroThresholds(t *testing.T, keys []string) []Threshold {
	t.Helper()
	spec := make([]string, len(keys))
	for i, k := range keys {
		spec[i] = k + ":0%"
	}
	ts, err := ParseThresholds(strings.Join(spec, ","))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
