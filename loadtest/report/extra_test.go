package report

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// dcgmExposition is what NVIDIA's dcgm-exporter serves for two GPUs with
// its default counters (names and help from etc/default-counters.csv of
// github.com/NVIDIA/dcgm-exporter; labels as it writes them), scrape k
// reporting GPU 0 at 10·k % and GPU 1 at 100 − k %.
func dcgmExposition(k int) string {
	var b strings.Builder
	labels := func(gpu int) string {
		return fmt.Sprintf(`gpu="%d",UUID="GPU-4b1c6f0e-93a2-7d55-1c0e-5a1d9f1e7a%02d",pci_bus_id="00000000:%02X:00.0",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-node-7",DCGM_FI_DRIVER_VERSION="550.54.15"`, gpu, gpu, 0x18+gpu, gpu)
	}
	fams := []struct {
		name, typ, help string
		val             func(gpu int) float64
	}{
		{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", func(int) float64 { return 1980 }},
		{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", func(int) float64 { return 41 }},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", func(gpu int) float64 { return 100 + float64(k) + float64(gpu) }},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", func(gpu int) float64 { return 5e9 + 1000*float64(k) }},
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", func(gpu int) float64 {
			if gpu == 0 {
				return 10 * float64(k)
			}
			return 100 - float64(k)
		}},
		{"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", func(int) float64 { return 1024 }},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", func(int) float64 { return 78000 }},
	}
	for _, f := range fams {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, f.help, f.name, f.typ)
		for gpu := range 2 {
			fmt.Fprintf(&b, "%s{%s} %g\n", f.name, labels(gpu), f.val(gpu))
		}
	}
	return b.String()
}

// fakeDCGM serves dcgmExposition(k) on its k-th scrape.
func fakeDCGM(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		k := n.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, dcgmExposition(int(k)))
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

// waitFor polls cond (no deadline of its own: the test's timeout is it).
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(5 * time.Millisecond)
	}
}

func findSeries(e serverwatch.ExtraEndpoint, name, gpu string) *serverwatch.ExtraSeries {
	for i := range e.Series {
		if e.Series[i].Name == name && e.Series[i].Labels["gpu"] == gpu {
			return &e.Series[i]
		}
	}
	return nil
}

// The default families of a DCGM exporter, plus a matched counter,
// summarised over the scrapes that answered; other families left out.
func TestWatchExtraSummarisesDCGM(t *testing.T) {
	ts, _ := fakeDCGM(t)
	res := append(serverwatch.DefaultExtraFamilies, regexp.MustCompile(`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`))
	w := serverwatch.WatchExtra(t.Context(), ts.Client(), []string{ts.URL + "/metrics?token=secret"}, res, 5*time.Millisecond)
	waitFor(func() bool { return w.Attempted(6) })
	rep := w.Stop()
	if len(rep.Endpoints) != 1 {
		t.Fatalf("%d endpoints", len(rep.Endpoints))
	}
	e := rep.Endpoints[0]
	if strings.Contains(e.URL, "secret") || e.Failures != 0 || e.Scrapes < 6 {
		t.Fatalf("endpoint %+v", e)
	}
	n := float64(e.Scrapes) // the first n scrapes served answered, in order
	util0 := findSeries(e, "DCGM_FI_DEV_GPU_UTIL", "0")
	util1 := findSeries(e, "DCGM_FI_DEV_GPU_UTIL", "1")
	energy := findSeries(e, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "0")
	if util0 == nil || util1 == nil || energy == nil || findSeries(e, "DCGM_FI_DEV_FB_USED", "1") == nil || findSeries(e, "DCGM_FI_DEV_POWER_USAGE", "0") == nil {
		t.Fatalf("series missing: %+v", e.Series)
	}
	if util0.Samples != e.Scrapes || util0.Min != 10 || util0.Max != 10*n || util0.Mean != 10*(n+1)/2 || util0.Last != 10*n {
		t.Errorf("GPU 0 utilisation over %g scrapes: %+v", n, *util0)
	}
	if util1.Max != 99 || util1.Min != 100-n {
		t.Errorf("GPU 1 utilisation: %+v", *util1)
	}
	if !energy.Counter || energy.Increase != 1000*(n-1) {
		t.Errorf("energy counter: %+v", *energy)
	}
	for _, s := range e.Series {
		if s.Name == "DCGM_FI_DEV_SM_CLOCK" || s.Name == "DCGM_FI_DEV_FB_FREE" {
			t.Errorf("%s reported without a match", s.Name)
		}
	}
	if len(e.Series) != 8 || util0.Labels["modelName"] != "NVIDIA H100 80GB HBM3" {
		t.Errorf("%d series (want 4 families × 2 GPUs), labels %v", len(e.Series), util0.Labels)
	}
	var text bytes.Buffer
	WriteExtra(&rep, &text, "Extra metrics during the run")
	if !strings.Contains(text.String(), `DCGM_FI_DEV_GPU_UTIL{gpu="0"}`) || !strings.Contains(text.String(), "0 failed") {
		t.Errorf("text:\n%s", text.String())
	}
}

// Failing endpoints are counted and named, never fatal, and do not stop
// the others: a body over the size cap, a redirect (not followed: its
// target is never asked), a 500, and a refused connection.
func TestWatchExtraHostileEndpoints(t *testing.T) {
	good, _ := fakeDCGM(t)
	var followed atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		followed.Add(1)
		fmt.Fprint(w, dcgmExposition(1))
	}))
	defer target.Close()
	endless := func(line string, announce bool) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			b := []byte(line)
			n := (17<<20)/len(b) + 1
			if announce {
				w.Header().Set("Content-Length", fmt.Sprint(n*len(b)))
			}
			for range n {
				if _, err := w.Write(b); err != nil {
					return
				}
			}
		}))
	}
	// 17 MiB of unwanted lines: refused on its Content-Length, or, not
	// announced, cut at 16 MiB read (or by the scrape's timeout on a slow
	// machine: bounded either way); as many wanted lines: the sample cap.
	huge := endless("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1\n", true)
	defer huge.Close()
	hugeStream := endless("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1\n", false)
	defer hugeStream.Close()
	many := endless("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 1\n", false)
	defer many.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/metrics", http.StatusFound)
	}))
	defer redirect.Close()
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "dcgm: no GPU", http.StatusInternalServerError)
	}))
	defer fail.Close()
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close()

	client := extraTestClient()
	urls := []string{huge.URL + "/metrics", hugeStream.URL, redirect.URL + "/metrics", fail.URL + "/metrics", many.URL, refused.URL + "/metrics", good.URL + "/metrics"}
	w := serverwatch.WatchExtra(t.Context(), client, urls, serverwatch.DefaultExtraFamilies, 5*time.Millisecond)
	waitFor(func() bool { return w.Attempted(2) })
	rep := w.Stop()
	want := []string{"over the 16777216-byte limit", "over the 16777216-byte limit|timeout", "302", "500",
		"more than 50000 samples|timeout", "connect"}
	for i, e := range rep.Endpoints[:6] {
		if e.Failures < 1 || e.Scrapes != 0 || len(e.Series) != 0 || !regexp.MustCompile(want[i]).MatchString(e.LastError) {
			t.Errorf("%s: %d failures, %d scrapes, last error %q (want %q)", e.URL, e.Failures, e.Scrapes, e.LastError, want[i])
		}
	}
	if g := rep.Endpoints[6]; g.Scrapes < 1 || len(g.Series) != 6 {
		t.Errorf("the good endpoint beside them: %+v", g)
	}
	if followed.Load() != 0 {
		t.Errorf("the redirect was followed %d times", followed.Load())
	}
}

// A sweep's points merge into one summary: means weighted by samples.
func TestMergeExtra(t *testing.T) {
	s := func(mean, lo, hi float64, n int, inc float64) serverwatch.ExtraSeries {
		return serverwatch.ExtraSeries{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: map[string]string{"gpu": "0"}, Samples: n, Mean: mean, Min: lo, Max: hi, Last: hi, Increase: inc}
	}
	a := serverwatch.ExtraReport{Endpoints: []serverwatch.ExtraEndpoint{{URL: "http://d:9400/metrics", Scrapes: 2, Series: []serverwatch.ExtraSeries{s(10, 5, 15, 2, 1)}}}}
	b := serverwatch.ExtraReport{Endpoints: []serverwatch.ExtraEndpoint{{URL: "http://d:9400/metrics", Scrapes: 6, Failures: 1, LastError: "x", Series: []serverwatch.ExtraSeries{s(50, 40, 90, 6, 2)}}}}
	m := serverwatch.MergeExtra([]serverwatch.ExtraReport{a, b, {}})
	if len(m.Endpoints) != 1 || len(m.Endpoints[0].Series) != 1 {
		t.Fatalf("%+v", m)
	}
	e, got := m.Endpoints[0], m.Endpoints[0].Series[0]
	if e.Scrapes != 8 || e.Failures != 1 || got.Samples != 8 || got.Mean != 40 || got.Min != 5 || got.Max != 90 || got.Increase != 3 {
		t.Errorf("merged %+v %+v", e, got)
	}
	if len(serverwatch.MergeExtra(nil).Endpoints) != 0 {
		t.Error("nothing merged is not empty")
	}
}

func extraTestClient() *http.Client {
	// As the bench builds it: redirects are the endpoint's failure.
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Stop returns promptly even while an endpoint hangs.
func TestWatchExtraStopsAHangingScrape(t *testing.T) {
	block := make(chan struct{})
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(block)
	w := serverwatch.WatchExtra(context.Background(), ts.Client(), []string{ts.URL}, serverwatch.DefaultExtraFamilies, time.Hour)
	waitFor(func() bool { return hits.Load() >= 1 })
	rep := w.Stop()
	if e := rep.Endpoints[0]; e.Scrapes != 0 || e.Failures != 0 {
		t.Errorf("a scrape cut off by the run's end is neither: %+v", e)
	}
}
