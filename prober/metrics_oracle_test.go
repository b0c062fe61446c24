package prober

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

// metricsAPI is what the scheduler calls on both implementations.
type metricsAPI interface {
	Init(target, model, module string, interval time.Duration, slos map[string]time.Duration)
	Delete(target, model, module string)
	Record(r *Result, end time.Time)
	Skip(target, model, module, reason string)
}

// oracleWorkload drives both implementations through the same history:
// several schedules (one with label values that need escaping), successes
// and every kind of failure, values on bucket bounds and at zero, SLO
// changes, a removed schedule, and ITLs spread so widely that the native
// buckets overflow and halve their resolution.
func oracleWorkload(apis ...metricsAPI) {
	rng := rand.New(rand.NewPCG(1, 2))
	targets := []string{"vllm-a", "vllm-b", "odd \"name\" \\ with\nnewline", "gone"}
	modules := []string{"chat", "completion"}
	end := time.Unix(1700000000, 0)
	do := func(f func(metricsAPI)) {
		for _, a := range apis {
			f(a)
		}
	}
	for _, tg := range targets {
		for _, mod := range modules {
			do(func(a metricsAPI) {
				a.Init(tg, "llama", mod, 15*time.Second, map[string]time.Duration{"ttft": 500 * time.Millisecond, "e2el": 2 * time.Second})
			})
		}
	}
	bounds := slices.Concat(HeadersBuckets, TTFTBuckets, ITLBuckets, E2EBuckets)
	for i := range 400 {
		tg, mod := targets[rng.IntN(len(targets))], modules[rng.IntN(len(modules))]
		if i > 200 && tg == "gone" && mod == "chat" {
			continue // removed: client_golang would bring its series back
		}
		end = end.Add(time.Second)
		r := &Result{ID: fmt.Sprintf("id%04d", i), Target: tg, Model: "llama", Module: mod}
		switch rng.IntN(6) {
		case 0:
			r.Reason = Reasons[rng.IntN(len(Reasons))]
			if r.Reason == ReasonValidation {
				r.ValidationFailures = []string{Validators[rng.IntN(len(Validators))]}
			}
		case 1:
			reason := []string{SkipOverlap, SkipConcurrency}[rng.IntN(2)]
			do(func(a metricsAPI) { a.Skip(tg, "llama", mod, reason) })
			continue
		default:
			d := func() time.Duration {
				if rng.IntN(5) == 0 { // exactly on a classic bound, or zero
					return time.Duration(bounds[rng.IntN(len(bounds))] * float64(time.Second) * float64(rng.IntN(2)))
				}
				return time.Duration(math.Exp(rng.Float64()*16-10) * float64(time.Second))
			}
			r.Headers, r.TTFT, r.E2EL, r.TPOT = d(), d(), d(), d()
			r.HasTTFT, r.UsageReported = true, true
			r.OutputTokens, r.PromptTokens, r.CachedTokens = rng.IntN(40), rng.IntN(100), rng.IntN(10)
			for range r.OutputTokens {
				// 1 µs to 10^4 s: far more than 100 buckets at schema 3.
				r.ITL = append(r.ITL, time.Duration(math.Exp(rng.Float64()*30-14)*float64(time.Second)))
			}
			if rng.IntN(3) == 0 {
				r.SLOViolations = []string{SLONames[rng.IntN(len(SLONames))]}
			} else {
				r.Good = true
			}
		}
		if i%37 == 5 {
			r.Warmup = WarmupFailureStreak // latencies kept out of the SLO series
			if i%74 == 5 {
				r.WarmupUntil = time.Now().Add(time.Hour) // open: active 1
			}
		}
		do(func(a metricsAPI) { a.Record(r, end) })
		if i == 200 {
			do(func(a metricsAPI) {
				a.Delete("gone", "llama", "chat")
				a.Init("vllm-b", "llama", "chat", 30*time.Second, map[string]time.Duration{"tpot": 50 * time.Millisecond})
			})
		}
	}
	do(func(a metricsAPI) { a.Delete("gone", "llama", "completion") })
}

func oracleGatherers(t *testing.T) (ours *Metrics, ref prometheus.Gatherer) {
	t.Helper()
	ours = NewMetrics(prometheus.NewRegistry())
	reg := prometheus.NewPedanticRegistry()
	oracleWorkload(ours, newRefMetrics(reg))
	return ours, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mfs, err := reg.Gather()
		// Only the per-schedule families are compared.
		return slices.DeleteFunc(mfs, func(mf *dto.MetricFamily) bool {
			return mf.GetName() == "llm_prober_probes_in_flight" || mf.GetName() == "llm_prober_schedule_delay_seconds"
		}), err
	})
}

// stripTimes removes what legitimately differs: when each series was
// created and when each exemplar was taken (client_golang reads its own
// clock; the store uses the probe's end), and client_golang's separate
// native-histogram exemplars, which the store does not keep.
func stripTimes(mfs []*dto.MetricFamily) {
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			if c := m.Counter; c != nil {
				c.CreatedTimestamp = nil
			}
			if h := m.Histogram; h != nil {
				h.CreatedTimestamp, h.Exemplars = nil, nil
				for _, b := range h.Bucket {
					if b.Exemplar != nil {
						b.Exemplar.Timestamp = nil
					}
				}
			}
		}
	}
}

// The protobuf exposition decodes to exactly the messages client_golang
// produces for the same history, native buckets and exemplars included.
func TestMetricsMatchClientGolangProtobuf(t *testing.T) {
	ours, ref := oracleGatherers(t)
	got, err := ours.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var schemas []int32
	for _, mf := range got {
		for _, m := range mf.Metric {
			if h := m.Histogram; h != nil {
				schemas = append(schemas, h.GetSchema())
				if h.CreatedTimestamp == nil {
					t.Errorf("%s: histogram without created timestamp", mf.GetName())
				}
			}
		}
	}
	if !slices.Contains(schemas, 3) || slices.Min(schemas) >= 3 {
		t.Fatalf("workload does not exercise both full and halved native resolution: schemas %v", schemas)
	}
	stripTimes(got)
	stripTimes(want)
	if len(got) != len(want) {
		t.Fatalf("%d families, client_golang has %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("family %s differs:\n got: %v\nwant: %v", want[i].GetName(), got[i], want[i])
		}
	}
}

var exemplarTime = regexp.MustCompile(`( # \{[^}]*\} \S+) \S+$`)

// The text formats carry the same lines as expfmt's encoding of
// client_golang's families; within a family the series come in another
// order, so lines are compared as sorted sets.
func TestMetricsMatchClientGolangText(t *testing.T) {
	ours, ref := oracleGatherers(t)
	for _, tc := range []struct {
		format expfmt.Format
		kind   exposition.Format
	}{
		{expfmt.NewFormat(expfmt.TypeTextPlain), exposition.FormatText},
		{expfmt.NewFormat(expfmt.TypeOpenMetrics), exposition.FormatOpenMetrics},
	} {
		var got, want bytes.Buffer
		w := exposition.NewWriter(&got, tc.kind)
		ours.WriteFamilies(w)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		mfs, err := ref.Gather()
		if err != nil {
			t.Fatal(err)
		}
		enc := expfmt.NewEncoder(&want, tc.format)
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				t.Fatal(err)
			}
		}
		g, wl := sortedLines(got.String()), sortedLines(want.String())
		if !slices.Equal(g, wl) {
			for _, l := range g {
				if !slices.Contains(wl, l) {
					t.Errorf("%s: extra line %q", tc.format, l)
				}
			}
			for _, l := range wl {
				if !slices.Contains(g, l) {
					t.Errorf("%s: missing line %q", tc.format, l)
				}
			}
		}
		if tc.kind == exposition.FormatOpenMetrics && !strings.Contains(got.String(), `# {probe_id="id`) {
			t.Error("OpenMetrics output has no exemplars")
		}
	}
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = exemplarTime.ReplaceAllString(l, "$1")
	}
	slices.Sort(lines)
	return lines
}
