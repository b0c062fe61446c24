package bench

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// fakeGPUExporter serves DCGM's GPU utilisation rising by 10 % a scrape
// (names as NVIDIA's dcgm-exporter writes them).
func fakeGPUExporter(t *testing.T) *httptest.Server {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		k := n.Add(1)
		fmt.Fprintf(w, "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %%).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"+
			"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\"} %d\n"+
			"# TYPE DCGM_FI_DEV_SM_CLOCK gauge\nDCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1980\n"+
			"# TYPE DCGM_FI_DEV_MEM_CLOCK gauge\nDCGM_FI_DEV_MEM_CLOCK{gpu=\"0\"} 2619\n", 10*k)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// A sweep with a GPU exporter and a broken one: the report's header has
// the server's version and cache config and the client; every point's
// JSON has them and its own GPU summary; the broken endpoint is named,
// and the sweep still succeeds.
func TestBenchCLIMetadataAndExtraMetrics(t *testing.T) {
	url := mocktarget.URL(t)
	gpu := fakeGPUExporter(t)
	var followed atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Add(1) }))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.RedirectHandler(elsewhere.URL, http.StatusFound))
	defer redirect.Close()
	out := filepath.Join(t.TempDir(), "sweep.json")
	code, stdout, log := benchCLI(t, "--url", url, "--rates", "20,40", "--num-prompts", "10", "--min-samples", "10",
		"--input-tokens", "8", "--output-tokens", "3", "--goodput", "ttft:2000", "--progress", "off", "--metrics-interval", "20ms",
		"--extra-metrics-url", gpu.URL+"/metrics", "--extra-metrics-url", redirect.URL+"/metrics?key=s3cret",
		"--extra-metrics-match", "DCGM_FI_DEV_SM_.*", "--output-json", out)
	// Every rate held: the knee is only a lower bound (exit 4, issue 31).
	if code != ExitFailed || !strings.Contains(log, "(lower bound): extend --rates") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"Run metadata", "Server version:                          0.", "block_size=16",
		"from:                                  /version, vllm:cache_config_info",
		"Extra metrics: rate 20.00 req/s", "Extra metrics over every point", `DCGM_FI_DEV_GPU_UTIL{gpu="0"}`,
		`DCGM_FI_DEV_SM_CLOCK{gpu="0"}`, "302 Found"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+log, "s3cret") || strings.Contains(stdout, "MEM_CLOCK") {
		t.Errorf("a credential or an unmatched family in the output:\n%s", stdout)
	}
	if followed.Load() != 0 {
		t.Error("the extra endpoint's redirect was followed")
	}
	var sw struct {
		Points []struct {
			Kind string `json:"kind"`
			Meta struct {
				Server struct {
					Version string            `json:"version"`
					Engine  map[string]string `json:"engine_config"`
				} `json:"server"`
				Client struct {
					CPUs    int    `json:"cpus"`
					Version string `json:"llm_prober_version"`
				} `json:"client"`
			} `json:"llm_prober_metadata"`
			Extra struct {
				Endpoints []struct {
					URL      string `json:"url"`
					Scrapes  int    `json:"scrapes"`
					Failures int    `json:"failures"`
					Series   []struct {
						Name      string  `json:"name"`
						Samples   int     `json:"samples"`
						Mean, Max float64 `json:"-"`
					} `json:"series"`
				} `json:"endpoints"`
			} `json:"llm_prober_extra_metrics"`
		} `json:"points"`
	}
	readJSON(t, out, &sw)
	if len(sw.Points) != 2 {
		t.Fatalf("%d points", len(sw.Points))
	}
	for _, p := range sw.Points {
		if p.Meta.Server.Version == "" || p.Meta.Server.Engine["block_size"] != "16" || p.Meta.Client.CPUs < 1 || p.Meta.Client.Version == "" {
			t.Errorf("point %s metadata %+v", p.Kind, p.Meta)
		}
		eps := p.Extra.Endpoints
		if len(eps) != 2 || eps[0].Scrapes < 1 || len(eps[0].Series) != 2 || eps[1].Failures < 1 || strings.Contains(eps[1].URL, "s3cret") {
			t.Errorf("point %s extra metrics %+v", p.Kind, eps)
		}
	}
}

// Bad extra-metrics flags fail before any request (exit 2), naming the flag.
func TestBenchCLIExtraMetricsFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--extra-metrics-url", "dcgm:9400/metrics"}, "--extra-metrics-url"},
		{[]string{"--extra-metrics-url", "ftp://dcgm/metrics"}, "--extra-metrics-url"},
		{[]string{"--extra-metrics-url", "http://dcgm:9400/metrics", "--extra-metrics-match", "DCGM_(["}, "--extra-metrics-match"},
		{[]string{"--extra-metrics-match", "DCGM_.*"}, "--extra-metrics-match needs --extra-metrics-url"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q:\n%s", c.args, code, c.want, log)
		}
	}
}
