package collector

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/config"
)

func re(s string) *config.Regexp {
	return &config.Regexp{Regexp: regexp.MustCompile("^(?:" + s + ")$"), Source: s}
}

func TestPassthroughGolden(t *testing.T) {
	srv := serveFile(t, "vllm-v1-assembled.prom")
	m, reg := newTestManager(t)
	tg := target("t1", srv.URL)
	tg.ServerMetrics.Passthrough = []*config.Regexp{
		re("vllm:cache_config_info"), re("vllm:num_requests_waiting_by_reason"),
		re("vllm:request_params_n"), re("http_requests_total"),
		re("vllm:num_requests"), // anchored: matches no family
	}
	m.Apply([]*config.Target{tg})
	waitScrapes(t, m, "t1", 1)
	compareGolden(t, reg, "passthrough")
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestPassthroughCapAndLabels(t *testing.T) {
	var b strings.Builder
	b.WriteString("# TYPE odd:counter counter\n")
	for i := 0; i < MaxPassthroughSeries+10; i++ {
		fmt.Fprintf(&b, "odd:counter{target=\"x\",i=\"%d\"} 1\n", i)
	}
	body := b.String()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) })
	m, reg := newTestManager(t)
	tg := target("p", srv.URL)
	tg.ServerMetrics.Passthrough = []*config.Regexp{re("odd:.*")}
	m.Apply([]*config.Target{tg})
	waitScrapes(t, m, "p", 1)
	got := series(t, reg, "llm_prober_passthrough_odd_counter_total", map[string]string{"target": "p", "exported_target": "x"})
	if len(got) != MaxPassthroughSeries {
		t.Errorf("got %d series, want the cap %d", len(got), MaxPassthroughSeries)
	}
	d := series(t, reg, "llm_prober_server_passthrough_series_dropped", map[string]string{"target": "p"})
	if len(d) != 1 || d[0].GetGauge().GetValue() != 10 {
		t.Errorf("dropped = %v, want 10", d)
	}
}

// Two targets passing through the same name with different help or type,
// or a name that clashes with a histogram's _count, must not break Gather.
func TestPassthroughAcrossTargetsStaysConsistent(t *testing.T) {
	a := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("# HELP x:g help A\n# TYPE x:g gauge\nx:g 1\n# TYPE x:h histogram\nx:h_bucket{le=\"+Inf\"} 1\nx:h_sum 1\nx:h_count 1\n"))
	})
	b := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("# HELP x:g help B\n# TYPE x:g gauge\nx:g 2\n# TYPE x_g counter\nx_g 3\n# TYPE x:h_count gauge\nx:h_count 5\n"))
	})
	m, reg := newTestManager(t)
	ta, tb := target("a", a.URL), target("b", b.URL)
	ta.ServerMetrics.Passthrough = []*config.Regexp{re("x.*")}
	tb.ServerMetrics.Passthrough = []*config.Regexp{re("x.*")}
	m.Apply([]*config.Target{ta, tb})
	waitScrapes(t, m, "a", 1)
	waitScrapes(t, m, "b", 1)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather must succeed: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "llm_prober_passthrough_x_g" {
			if mf.GetHelp() != "help A" || len(mf.GetMetric()) != 2 || mf.GetType() != dto.MetricType_GAUGE {
				t.Errorf("x_g: %v", mf)
			}
		}
		if mf.GetName() == "llm_prober_passthrough_x_h_count" {
			t.Errorf("x:h_count clashes with histogram x:h and must be left out")
		}
	}
}

func TestPassthroughName(t *testing.T) {
	for in, want := range map[string]string{
		"vllm:foo":                   "llm_prober_passthrough_vllm_foo",
		"llamacpp:n_tokens_max":      "llm_prober_passthrough_llamacpp_n_tokens_max_total",
		"http_requests_total":        "llm_prober_passthrough_http_requests_total",
		"weird.name-with dots":       "llm_prober_passthrough_weird_name_with_dots",
		"vllm:num_preemptions_total": "llm_prober_passthrough_vllm_num_preemptions_total",
	} {
		typ := dto.MetricType_GAUGE
		if strings.HasPrefix(in, "llamacpp") || strings.HasSuffix(in, "_total") {
			typ = dto.MetricType_COUNTER
		}
		if got := passthroughName(in, typ); got != want {
			t.Errorf("passthroughName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"target": "exported_target", "__name": "exported__name", "0x": "_0x", "a.b": "a_b"} {
		if got := ptLabelName(in); got != want {
			t.Errorf("ptLabelName(%q) = %q, want %q", in, got, want)
		}
	}
}
