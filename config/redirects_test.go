package config

import (
	"reflect"
	"testing"
)

// A redirected POST is replayed as a GET (301-303) or sent to another host:
// either way the probe no longer measures the target. Every HTTP client in
// the file therefore follows no redirect unless it says follow_redirects: true.
func TestFollowRedirectsDefaultsToFalse(t *testing.T) {
	for _, tc := range []struct {
		name, extra    string
		target, scrape bool // want, for the target and its /metrics override
	}{
		{"omitted", "", false, false},
		{"given without it", "    http_client_config: {enable_http2: false}\n    server_metrics: {http_client_config: {enable_http2: false}}\n", false, false},
		{"set to true", "    http_client_config: {follow_redirects: true}\n    server_metrics: {http_client_config: {follow_redirects: true}}\n", true, true},
		{"null", "    http_client_config: {follow_redirects: null}\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := mustLoad(t, minimal+tc.extra).Targets[0]
			if got := tg.HTTPClientConfig.FollowRedirects; got != tc.target {
				t.Errorf("target follow_redirects %v, want %v", got, tc.target)
			}
			if got := tg.ServerMetricsHTTPClientConfig().FollowRedirects; got != tc.scrape {
				t.Errorf("server_metrics follow_redirects %v, want %v", got, tc.scrape)
			}
		})
	}
}

// Probes speak HTTP/1.1 unless a client config asks for HTTP/2: one stream
// per connection, so that chunk arrivals carry kernel receive times.
func TestHTTP2OffByDefault(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		want        bool
	}{
		{"omitted", "", false},
		{"given without it", "    http_client_config: {follow_redirects: false}\n", false},
		{"set to true", "    http_client_config: {enable_http2: true}\n", true},
	} {
		tg := mustLoad(t, minimal+tc.extra).Targets[0]
		if got := tg.HTTPClientConfig.EnableHTTP2; got != tc.want {
			t.Errorf("%s: enable_http2 %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Discovery clients follow no redirect unless the file says so (the
// Prometheus default follows any, credentials and headers included), and
// one that does may not carry credentials or headers.
func TestDiscoveryFollowRedirects(t *testing.T) {
	const head = "modules:\n  m:\n    messages: [{role: user, content: hi}]\ntarget_discovery:\n  - name: d\n    template: {modules: [m]}\n"
	for _, tc := range []struct {
		name, sd string
		want     []bool // per http_sd item
		err      string
	}{
		{"omitted", "    http_sd_configs:\n      - url: http://127.0.0.1:1/sd\n      - url: http://127.0.0.1:2/sd\n        follow_redirects: true\n", []bool{false, true}, ""},
		{"kubernetes omitted", "    kubernetes_sd_configs:\n      - role: pod\n        api_server: http://127.0.0.1:3\n", nil, ""},
		{"true with credentials", "    http_sd_configs:\n      - url: http://127.0.0.1:1/sd\n        follow_redirects: true\n        http_headers: {X-Tenant: {values: [a]}}\n", nil,
			"test.yml:9: target_discovery[0].http_sd_configs[0].follow_redirects: a discovery that follows redirects would send its credentials and headers to whatever host or port a redirect names; remove follow_redirects: true or the credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load([]byte(head+tc.sd), "test.yml")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Load = %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			clients := sdClients(c.TargetDiscovery[0], "")
			if tc.want == nil {
				// Left as Prometheus defaults it: with follow_redirects its
				// client strips Authorization on a redirect to another host.
				hc := reflect.ValueOf(c.TargetDiscovery[0].SDConfigs[0]).Elem().FieldByName("HTTPClientConfig")
				if len(clients) != 0 || !hc.FieldByName("FollowRedirects").Bool() {
					t.Errorf("kubernetes: clients %+v, follow_redirects %v; want it left as Prometheus's default", clients, hc.FieldByName("FollowRedirects"))
				}
				return
			}
			for i, w := range tc.want {
				if got := clients[i].FollowRedirects; got != w {
					t.Errorf("item %d follow_redirects %v, want %v", i, got, w)
				}
			}
		})
	}
}

// max_targets is read, and may not be negative.
func TestDiscoveryMaxTargets(t *testing.T) {
	const head = "modules:\n  m:\n    messages: [{role: user, content: hi}]\ntarget_discovery:\n  - name: d\n    template: {modules: [m], model: x}\n    http_sd_configs: [{url: 'http://127.0.0.1:1/sd'}]\n"
	c := mustLoad(t, head+"    max_targets: 20\n")
	if got := c.TargetDiscovery[0].MaxTargets; got != 20 {
		t.Errorf("max_targets = %d, want 20", got)
	}
	_, err := Load([]byte(head+"    max_targets: -1\n"), "t.yml")
	if want := "t.yml:8: target_discovery[0].max_targets: must not be negative"; err == nil || err.Error() != want {
		t.Errorf("Load = %v, want %s", err, want)
	}
}
