package collector

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

func clientOf(m *Manager, name string) *http.Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.scrapers[name]; s != nil {
		return s.client
	}
	return nil
}

// Targets with identical client settings share one client, as probes do.
func TestTargetsWithOneSettingShareAClient(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(goodBody)) })
	m := newManager(t)
	a, b, c := target("a", srv.URL), target("b", srv.URL), target("c", srv.URL)
	c.HTTPClientConfig.FollowRedirects = true
	m.Apply([]*config.Target{a, b, c})
	ca, cb, cc := clientOf(m, "a"), clientOf(m, "b"), clientOf(m, "c")
	if ca == nil || ca != cb {
		t.Error("identical settings got separate clients")
	}
	if cc == ca {
		t.Error("other settings shared a client")
	}
}

// A target whose client cannot be built (its CA file is missing) reports
// failed scrapes, and a reload of the same config repairs it once the file
// is there.
func TestClientBuildFailureReportedAndRetried(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(goodBody)) }))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	tlsTarget := func() *config.Target {
		tg := target("tls", srv.URL)
		tg.HTTPClientConfig.TLSConfig.CAFile = ca
		return tg
	}
	m, reg := newTestManager(t)
	m.Apply([]*config.Target{tlsTarget()})
	waitScrapes(t, m, "tls", 1)
	if got := failures(t, reg, "tls", reasonClientConfig); got < 1 {
		t.Errorf("client_config failures = %v, want >= 1", got)
	}
	if up := series(t, reg, "llm_prober_server_scrape_success", map[string]string{"target": "tls"}); len(up) != 1 || up[0].GetGauge().GetValue() != 0 {
		t.Errorf("scrape_success = %v, want 0", up)
	}

	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, b, 0o600); err != nil {
		t.Fatal(err)
	}
	m.Apply([]*config.Target{tlsTarget()}) // unchanged config, as on every reload
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		up := series(t, reg, "llm_prober_server_scrape_success", map[string]string{"target": "tls"})
		if len(up) == 1 && up[0].GetGauge().GetValue() == 1 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the reload did not repair the target's client")
}

// A target redirecting its /metrics elsewhere never gets the scrape's
// secret header sent there, whether redirects are followed or not.
func TestScrapeRedirectCarriesNoSecret(t *testing.T) {
	const secret = "scrape-secret"
	var hits, leaks atomic.Int32
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Api-Key") == secret {
			leaks.Add(1)
		}
		_, _ = w.Write([]byte(goodBody))
	})
	src := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/metrics", http.StatusFound)
	})
	m, reg := newTestManager(t)
	var ts []*config.Target
	for name, follow := range map[string]bool{"follow": true, "nofollow": false} {
		tg := target(name, src.URL)
		tg.HTTPClientConfig.FollowRedirects = follow
		tg.HTTPClientConfig.HTTPHeaders = &commoncfg.Headers{Headers: map[string]commoncfg.Header{
			"X-Api-Key": {Secrets: []commoncfg.Secret{secret}},
		}}
		ts = append(ts, tg)
	}
	m.Apply(ts)
	for _, tg := range ts {
		waitScrapes(t, m, tg.Name, 1)
		if got := failures(t, reg, tg.Name, reasonHTTPStatus); got != 1 {
			t.Errorf("%s: http_status failures = %v, want 1", tg.Name, got)
		}
	}
	if hits.Load() != 0 || leaks.Load() != 0 {
		t.Errorf("the other origin got %d scrapes, %d with the secret", hits.Load(), leaks.Load())
	}
}

// global.keep_alive_timeout applies to scrapes as to probes: idle
// connections close after it, and a reload that changes it rebuilds the
// client (an unchanged one keeps it).
func TestKeepAliveApplies(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(goodBody)) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	m := newManager(t)
	tg := target("a", srv.URL)
	tg.ServerMetrics.Interval = model.Duration(100 * time.Millisecond)
	m.SetKeepAlive(20 * time.Millisecond)
	m.Apply([]*config.Target{tg})
	first := clientOf(m, "a")
	waitScrapes(t, m, "a", 4)
	// However slow the machine, no scrape finds the last one's
	// connection still open: at least one connection per scrape.
	m.mu.Lock()
	sc := m.scrapers["a"]
	m.mu.Unlock()
	sc.mu.Lock()
	scrapes := sc.ctr.scrapes
	sc.mu.Unlock()
	if n := conns.Load(); float64(n) < scrapes-1 {
		t.Errorf("%v scrapes used %d connections: idle ones outlived a 20ms keep-alive", scrapes, n)
	}
	m.SetKeepAlive(20 * time.Millisecond)
	m.Apply([]*config.Target{tg})
	if clientOf(m, "a") != first {
		t.Error("an unchanged keep-alive rebuilt the client")
	}
	m.SetKeepAlive(time.Minute)
	m.Apply([]*config.Target{tg})
	if clientOf(m, "a") == first {
		t.Error("a changed keep-alive kept the old client")
	}
}
