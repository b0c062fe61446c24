package config

import "testing"

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
