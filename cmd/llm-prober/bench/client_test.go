package bench

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// conntrackDials is go-conntrack's count of connections dialled by the
// prometheus/common transport named llm_prober.
func conntrackDials(t *testing.T) float64 {
	t.Helper()
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "net_conntrack_dialer_conn_established_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "dialer_name" && l.GetValue() == "llm_prober" {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// bench's connections are not wrapped by go-conntrack, whose per-connection
// /debug/events log (~8.8 KiB) was 12 MB at 1,400 streams (issue 35).
func TestBenchClientConnectionsUntraced(t *testing.T) {
	url := mocktarget.URL(t)
	b := &Config{URL: url, Model: "m"}
	_, client, err := b.benchTarget(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := conntrackDials(t)
	for range 3 {
		resp, err := client.Get(url + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d", resp.StatusCode)
		}
		client.CloseIdleConnections() // a new connection each time
	}
	if d := conntrackDials(t) - before; d != 0 {
		t.Errorf("%v connections went through go-conntrack's traced dialer", d)
	}
}

// A --config.file target's TLS (CA from a file) and credentials file reach
// the server through bench's own client, as through the daemon's.
func TestBenchClientTargetTLSAndAuth(t *testing.T) {
	pki := testutil.NewPKI(t, "127.0.0.1")
	var auth atomic.Value
	url := pki.ServeTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, `{"data":[{"id":"m"}]}`)
	}))
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "cfg.yml")
	cfg := "modules: {chat: {messages: [{role: user, content: hi}]}}\n" +
		"targets: [{name: a, url: '" + url + "', model: m, modules: [chat], http_client_config: " +
		"{tls_config: {ca_file: '" + pki.CAFile + "'}, authorization: {credentials_file: '" + key + "'}}}]\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &Config{ConfigFile: cfgFile, Target: "a"}
	_, client, err := b.benchTarget(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if got := auth.Load(); got != "Bearer sk-from-file" {
		t.Errorf("Authorization %q, want the file's key", got)
	}
}
