package targets

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// http_sd redirected to another port must send that port nothing secret:
// before, the discovery followed the redirect with Authorization and
// X-Api-Key. The sink fails the test if either reaches it.
func TestHTTPSDRedirectKeepsSecrets(t *testing.T) {
	const token, key = "sd-token-b22b", "sd-key-b22b"
	t.Setenv("SD_TOKEN", token)
	t.Setenv("SD_KEY", key)
	var sunk atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sunk.Add(1)
		for name, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, token) || strings.Contains(v, key) {
					t.Errorf("the sink got header %s with a secret", name)
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"targets": ["127.0.0.1:9"]}]`))
	}))
	defer sink.Close()
	sd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, sink.URL+"/sd", http.StatusFound)
	}))
	defer sd.Close()
	cfg := loadConfig(t, t.TempDir(), `
target_discovery:
  - name: registry
    http_sd_configs:
      - url: `+sd.URL+`/sd
        refresh_interval: 100ms
        authorization: {credentials: "${SD_TOKEN}"}
        http_headers: {X-Api-Key: {secrets: ["${SD_KEY}"]}}
    template:
      modules: [m]
      model: x
`)
	r := startFleet(t, cfg, Shard{Count: 1})
	waitMetric(t, r, "prometheus_sd_http_failures_total", "", 2)
	if n := sunk.Load(); n != 0 {
		t.Errorf("the redirect was followed: the sink got %d requests", n)
	}
}
