package e2e

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/exposition"
	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/prober"

	"github.com/llm-prober/llm-prober/internal/promapi"
)

// quantileDist draws one probe's TTFT and TPOT, in seconds.
type quantileDist func(r *rand.Rand) (ttft, tpot float64)

// Shapes real servers produce: log-normal (skewed) latencies, and bimodal
// ones (70 % served from the prefix cache or a short queue, 30 % not), so
// that the 50th percentile falls in one mode and the 90th and 99th in the
// other, never in the empty gap between them.
var quantileDists = map[string]quantileDist{
	"skewed": func(r *rand.Rand) (float64, float64) {
		return 0.15 * math.Exp(0.8*r.NormFloat64()), 0.012 * math.Exp(0.4*r.NormFloat64())
	},
	"bimodal": func(r *rand.Rand) (float64, float64) {
		if r.Float64() < 0.7 {
			return max(0.002, 0.08+0.01*r.NormFloat64()), max(0.001, 0.008+0.001*r.NormFloat64())
		}
		return max(0.002, 0.9+0.15*r.NormFloat64()), max(0.001, 0.03+0.004*r.NormFloat64())
	},
	"fast": func(r *rand.Rand) (float64, float64) { // a small model on a big GPU
		return 0.025 * math.Exp(0.3*r.NormFloat64()), 0.004 * math.Exp(0.25*r.NormFloat64())
	},
}

// Bounds on histogram_quantile's relative error against the exact
// quantile of the raw values (docs/metrics-contract.md has the figures).
const (
	nativeQuantileError  = 0.05
	classicQuantileError = 0.06
)

// TestQuantileAccuracy records probes from known distributions, lets a
// real Prometheus scrape them, and compares histogram_quantile over the
// native and the classic buckets with the exact quantiles.
func TestQuantileAccuracy(t *testing.T) {
	requireE2E(t)
	promBin := prometheusBinary(t)
	reg := prometheus.NewRegistry()
	m := prober.NewMetrics(reg)
	exact := map[string]map[string][]float64{} // dist -> metric -> values
	rng := rand.New(rand.NewPCG(1, 2))
	module := &config.Module{Name: "chat"}
	end := time.Now()
	for _, name := range slices.Sorted(mapsKeys(quantileDists)) { // one sequence of draws
		draw := quantileDists[name]
		target := &config.Target{Name: name, Model: "m"}
		m.InitSchedule(target, module)
		exact[name] = map[string][]float64{}
		for i := range 4000 {
			ttft, tpot := draw(rng)
			const tokens = 16
			r := &prober.Result{ID: fmt.Sprint(i), Target: name, Model: "m", Module: "chat",
				TTFT: seconds(ttft), HasTTFT: true, TPOT: seconds(tpot), OutputTokens: tokens,
				E2EL: seconds(ttft + tpot*(tokens-1)), ContentChunks: tokens}
			m.Record(r, end)
			exact[name]["llm_prober_time_to_first_token_seconds"] = append(exact[name]["llm_prober_time_to_first_token_seconds"], r.TTFT.Seconds())
			exact[name]["llm_prober_time_per_output_token_seconds"] = append(exact[name]["llm_prober_time_per_output_token_seconds"], r.TPOT.Seconds())
		}
	}
	srv := httptest.NewServer(exposition.Handler(reg, m, log.New(os.Stderr, "", 0)))
	t.Cleanup(srv.Close)

	tmp := t.TempDir()
	promAddr := testutil.FreeAddr(t)
	cfg := filepath.Join(tmp, "prometheus.yml")
	testutil.WriteFile(t, cfg, strings.ReplaceAll(`global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: q
    scrape_native_histograms: true
    always_scrape_classic_histograms: true
    static_configs: [{targets: ["{{ADDR}}"]}]
`, "{{ADDR}}", strings.TrimPrefix(srv.URL, "http://")))
	prom := testutil.Start(t, "prometheus", promBin, "--config.file", cfg, "--storage.tsdb.path", filepath.Join(tmp, "tsdb"),
		"--web.listen-address", promAddr)
	testutil.WaitHTTP(t, prom, "http://"+promAddr+"/-/ready", 60*time.Second)
	api := promAPI{promapi.Client{Base: "http://" + promAddr}}
	ctx := context.Background()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		v, err := api.instant(ctx, `count(llm_prober_time_to_first_token_seconds)`)
		if err == nil && hasValue(v) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no native histogram scraped: %v", err)
		}
	}

	var report strings.Builder
	fmt.Fprintf(&report, "%-9s %-42s %5s %10s %10s %7s %10s %7s\n", "dist", "metric", "q", "exact", "native", "err", "classic", "err")
	for _, name := range slices.Sorted(mapsKeys(exact)) {
		for _, metric := range slices.Sorted(mapsKeys(exact[name])) {
			values := slices.Sorted(slices.Values(exact[name][metric]))
			for _, q := range []float64{0.5, 0.9, 0.99} {
				want := exactQuantile(values, q)
				native := queryScalar(ctx, t, api, fmt.Sprintf(`histogram_quantile(%g, %s{target=%q})`, q, metric, name))
				classic := queryScalar(ctx, t, api, fmt.Sprintf(`histogram_quantile(%g, %s_bucket{target=%q})`, q, metric, name))
				en, ec := math.Abs(native-want)/want, math.Abs(classic-want)/want
				fmt.Fprintf(&report, "%-9s %-42s %5g %9.2fms %9.2fms %6.1f%% %9.2fms %6.1f%%\n",
					name, metric, q, want*1e3, native*1e3, en*100, classic*1e3, ec*100)
				if !(en <= nativeQuantileError) {
					t.Errorf("%s %s p%g: native %.4g vs exact %.4g (%.1f%% off)", name, metric, q*100, native, want, en*100)
				}
				if !(ec <= classicQuantileError) {
					t.Errorf("%s %s p%g: classic %.4g vs exact %.4g (%.1f%% off)", name, metric, q*100, classic, want, ec*100)
				}
			}
		}
	}
	t.Logf("histogram_quantile against the exact quantiles of %d probes per distribution:\n%s", 4000, report.String())
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// exactQuantile is the sorted values' q-quantile, interpolated between
// the two nearest ranks (numpy's default, as vllm bench reports).
func exactQuantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

func queryScalar(ctx context.Context, t *testing.T, api promAPI, q string) float64 {
	t.Helper()
	v, err := api.instant(ctx, q)
	if err != nil || len(v) != 1 {
		t.Fatalf("%s: %v (%d samples)", q, err, len(v))
	}
	s, _ := v[0].Value[1].(string)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s: value %v", q, v[0].Value[1])
	}
	return f
}

func mapsKeys[M ~map[string]V, V any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
