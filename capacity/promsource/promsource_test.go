package promsource

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/crypto/bcrypt"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

func source(t *testing.T, u, selector string, window time.Duration, end time.Time, httpConfig string) *Source {
	t.Helper()
	f := &Flags{URL: u, Selector: selector, Window: model.Duration(window), Timeout: 30 * time.Second,
		RateInterval: model.Duration(5 * time.Minute), HTTPConfigFile: httpConfig}
	if !end.IsZero() {
		f.End = end.Format(time.RFC3339)
	}
	return flagsSource(t, f)
}

// flagsSource is the source f's flags configure; a refusal fails t.
func flagsSource(t testing.TB, f *Flags) *Source {
	t.Helper()
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Two days of known traffic backfilled into the pinned Prometheus: the
// peak, the busiest hour, the mean, the targets and probers and the
// lengths are those of the curve, across a counter reset and a target
// re-exported by two probers.
func TestServedFromBackfilledPrometheus(t *testing.T) {
	tr := testutil.DiurnalTraffic(time.Now())
	prom := testutil.BackfilledPrometheus(t, tr.OpenMetrics(), testutil.PromOptions{})
	end := tr.Start.Add(tr.Duration)
	ctx := context.Background()

	s := source(t, prom.URL, "", 48*time.Hour, end, "")
	r, err := s.ServedRates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Targets, ",") != "a,b" || r.Probers != 2 {
		t.Errorf("targets %v, probers %d; want a,b and 2", r.Targets, r.Probers)
	}
	if r.Partial() || r.History() < 47*time.Hour {
		t.Errorf("history %s of 48h, partial %v", r.History(), r.Partial())
	}
	peak := r.Max()
	if math.Abs(peak.V-10) > 1e-6 || peak.T.Add(-r.RateInterval).Before(tr.Start.Add(14*time.Hour)) || peak.T.After(tr.Start.Add(15*time.Hour)) {
		t.Errorf("peak %.4f req/s at %s, want 10 within day one's 14:00-15:00", peak.V, peak.T)
	}
	want := tr.Served(tr.Start, end) / tr.Duration.Seconds()
	if got := r.Mean(); math.Abs(got-want)/want > 0.01 {
		t.Errorf("mean rate %.4f, want %.4f (±1%%)", got, want)
	}
	busiest := BusiestHour(r.ByHour(time.UTC))
	if busiest.Hour != 14 || busiest.Days != 2 || math.Abs(busiest.MeanPeak-9) > 1e-6 || math.Abs(busiest.MaxPeak-10) > 1e-6 {
		t.Errorf("busiest hour %+v, want 14 with a mean daily peak of 9 over 2 days", busiest)
	}
	if q := r.Quantile(0.99); q < 8 || q > 10+1e-9 {
		t.Errorf("p99 of the 5-minute rates %.3f, want within the peak hours (8..10)", q)
	}

	p, err := s.Lengths(ctx, PromptTokens)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Mean()-640) > 0.5 || math.Abs(p.Count-tr.Served(tr.Start, end))/p.Count > 0.01 {
		t.Errorf("prompt mean %.2f over %.0f requests, want 640 over %.0f", p.Mean(), p.Count, tr.Served(tr.Start, end))
	}
	if med, err := s.Quantile(ctx, PromptTokens, 0.5); err != nil || math.Abs(med-768) > 1 {
		t.Errorf("prompt median %.2f (%v), want 768", med, err)
	}
	g, err := s.Lengths(ctx, GenerationTokens)
	if err != nil || math.Abs(g.Mean()-200) > 0.5 {
		t.Errorf("generation mean %v (%v), want 200", g.Mean(), err)
	}

	// One target: only its share, one prober counted.
	one := source(t, prom.URL, `{target="b"}`, 48*time.Hour, end, "")
	rb, err := one.ServedRates(ctx)
	if err != nil || math.Abs(rb.Max().V-4) > 1e-6 || rb.Probers != 1 {
		t.Errorf("target b: peak %v, probers %v (%v); want 4 and 1", rb.Max().V, rb.Probers, err)
	}

	// A window longer than the history: partial, and says how much.
	long := source(t, prom.URL, "", 7*24*time.Hour, end, "")
	rl, err := long.ServedRates(ctx)
	if err != nil || !rl.Partial() || rl.History() < 47*time.Hour || rl.History() > 49*time.Hour {
		t.Errorf("7d window over 2d of data: partial %v, history %v (%v)", rl != nil && rl.Partial(), rl.History(), err)
	}

	// Nothing matches: ErrNoData naming the selector and the window.
	none := source(t, prom.URL, `{target="nope"}`, 48*time.Hour, end, "")
	_, err = none.ServedRates(ctx)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), `{target="nope"}`) || !strings.Contains(err.Error(), "2d") {
		t.Errorf("no series: %v", err)
	}
	if _, err := none.Lengths(ctx, PromptTokens); !errors.Is(err, ErrNoData) {
		t.Errorf("no histogram: %v", err)
	}

	// A rate interval shorter than the scrape interval (1m here) holds no
	// two samples: the error names that, not server_metrics (issue 33).
	short := source(t, prom.URL, "", 48*time.Hour, end, "")
	short.cfg.RateInterval = 30 * time.Second
	_, err = short.ServedRates(ctx)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "no --rate-interval window of 30s holds two of their samples (they are scraped about every 1m)") ||
		strings.Contains(err.Error(), "server_metrics") {
		t.Errorf("rate interval under the scrape interval: %v", err)
	}
}

// Basic auth from a password file works; without it Prometheus's 401 is
// an error; a redirect is not followed, so credentials stay home.
func TestSourceAuthAndRedirect(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret-prom"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	prom := testutil.BackfilledPrometheus(t, nil, testutil.PromOptions{
		WebConfig: "basic_auth_users:\n  planner: " + string(hash) + "\n", User: "planner", Password: "s3cret-prom"})
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "pw"), "s3cret-prom\n")
	hc := filepath.Join(dir, "http.yml")
	testutil.WriteFile(t, hc, "basic_auth:\n  username: planner\n  password_file: pw\n")
	ctx := context.Background()

	_, err = source(t, prom.URL, "", time.Hour, time.Time{}, hc).ServedRates(ctx)
	if !errors.Is(err, ErrNoData) {
		t.Errorf("with credentials: %v, want no data (an empty Prometheus)", err)
	}
	_, err = source(t, prom.URL, "", time.Hour, time.Time{}, "").ServedRates(ctx)
	if err == nil || errors.Is(err, ErrNoData) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("without credentials: %v, want an unauthorized error", err)
	}

	var hits atomic.Int32
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, prom.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer redirect.Close()
	_, err = source(t, redirect.URL, "", time.Hour, time.Time{}, hc).ServedRates(ctx)
	if err == nil || !strings.Contains(err.Error(), "redirect") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("redirect: %v, want a not-followed error", err)
	}
	if hits.Load() == 0 {
		t.Error("the redirecting server was never asked")
	}

	testutil.WriteFile(t, hc, "basic_auth:\n  username: planner\n  password: s3cret-prom\n")
	f := &Flags{URL: prom.URL, Timeout: time.Second, Window: model.Duration(time.Hour), RateInterval: model.Duration(time.Minute), HTTPConfigFile: hc}
	cfg, _ := f.Config()
	if _, err := New(*cfg); err == nil || !strings.Contains(err.Error(), "password_file") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("inline password: %v", err)
	}
}

func TestFlagsConfig(t *testing.T) {
	ok := Flags{URL: "http://127.0.0.1:9090", Window: model.Duration(time.Hour), Timeout: time.Second, RateInterval: model.Duration(time.Minute)}
	for _, c := range []struct {
		mod  func(*Flags)
		want string
	}{
		{func(f *Flags) { f.URL = "127.0.0.1:9090" }, "--prometheus.url"},
		{func(f *Flags) { f.URL = "" }, "--prometheus.url is required"},
		{func(f *Flags) { f.URL = "http://u:p@127.0.0.1:9090" }, "credentials in the URL"},
		{func(f *Flags) { f.Selector = `{target="a"` }, "--selector"},
		{func(f *Flags) { f.Selector = `target="a"` }, "in braces"},
		{func(f *Flags) { f.Selector = `{__name__="up"}` }, "not a metric name"},
		{func(f *Flags) { f.Window = 0 }, "--window"},
		{func(f *Flags) { f.RateInterval = model.Duration(2 * time.Hour) }, "--rate-interval"},
		{func(f *Flags) { f.End = "yesterday" }, "--window.end"},
		{func(f *Flags) { f.Timeout = 0 }, "--prometheus.timeout"},
	} {
		f := ok
		c.mod(&f)
		if _, err := f.Config(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", f, err, c.want)
		}
	}
	f := ok
	f.Selector = ` {target=~"vllm-.*", model!="x"} `
	cfg, err := f.Config()
	if err != nil || cfg.Matchers != `target=~"vllm-.*",model!="x"` {
		t.Errorf("matchers %q, %v", cfg.Matchers, err)
	}
}

// bench reads no rates: with RateInterval 0 a window of any length is
// fine (it was refused as shorter than plan's 5m default).
func TestFlagsWithoutRateInterval(t *testing.T) {
	f := NewFlags()
	f.URL, f.Window, f.Timeout = "http://127.0.0.1:9090", model.Duration(2*time.Minute), time.Second
	if cfg, err := f.Config(); err != nil || cfg.RateInterval != 0 || cfg.Window != 2*time.Minute {
		t.Errorf("%+v, %v", cfg, err)
	}
	f.RateInterval = model.Duration(5 * time.Minute)
	if _, err := f.Config(); err == nil || !strings.Contains(err.Error(), "--rate-interval 5m is longer than --window 2m") {
		t.Errorf("5m rates in a 2m window: %v", err)
	}
}
