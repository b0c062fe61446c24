package promsource

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// The streaming decoder reads what the pinned Prometheus answers exactly
// as client_golang does: every result type, labels, NaN from
// histogram_quantile, empty results, and Prometheus's own errors.
func TestStreamDecodeMatchesClientGolang(t *testing.T) {
	tr := testutil.DiurnalTraffic(time.Now())
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	end := tr.Start.Add(tr.Duration)
	s := source(t, prom.URL, "", 48*time.Hour, end, "")
	c, err := api.NewClient(api.Config{Address: prom.URL})
	if err != nil {
		t.Fatal(err)
	}
	ref, ours := v1.NewAPI(c), s.api.(boundedAPI).API
	ctx := context.Background()
	rng := v1.Range{Start: end.Add(-6 * time.Hour), End: end, Step: 5 * time.Minute}
	for _, q := range []string{
		"llm_prober_server_requests_finished_total",
		"sum by (target) (rate(llm_prober_server_requests_finished_total[5m]))",
		"scalar(sum(rate(llm_prober_server_requests_finished_total[5m])))",
		`histogram_quantile(0.5, sum by (le) (rate(llm_prober_server_prompt_tokens_bucket{target="none"}[5m])))`,
		"vector(0) / 0",
		"no_such_metric",
		"sum(",
	} {
		want, _, _, werr := ref.Query(ctx, q, end)
		got, _, _, gerr := ours.Query(ctx, q, end)
		if !sameAnswer(want, got, werr, gerr) {
			t.Errorf("query %s:\n got %v, %v\nwant %v, %v", q, got, gerr, want, werr)
		}
		want, _, _, werr = ref.QueryRange(ctx, q, rng)
		got, _, _, gerr = ours.QueryRange(ctx, q, rng)
		if !sameAnswer(want, got, werr, gerr) {
			t.Errorf("query_range %s:\n got %.300v, %v\nwant %.300v, %v", q, got, gerr, want, werr)
		}
	}
}

func sameAnswer(want, got any, werr, gerr error) bool {
	if werr != nil || gerr != nil {
		return werr != nil && gerr != nil && werr.Error() == gerr.Error()
	}
	// NaN != NaN: compare the printed values.
	return reflect.TypeOf(want) == reflect.TypeOf(got) && fmtValue(want) == fmtValue(got)
}

func fmtValue(v any) string { return fmt.Sprint(v) }
