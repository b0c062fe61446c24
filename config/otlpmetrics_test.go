package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// otlp_metrics: credentials from files or ${ENV} only, hidden on /config
// and in errors; a bad endpoint or interval is one line naming the field;
// redirects not followed unless asked; off when absent.
func TestOTLPMetricsSection(t *testing.T) {
	if c := mustLoad(t, minimal); c.OTLPMetrics.Enabled() {
		t.Fatal("otlp_metrics on by default")
	}
	const pass = "otlp-metrics-pass-36"
	t.Setenv("OTLP_METRICS_KEY", "otlp-metrics-key-36")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tenant"), []byte("t1"), 0o600); err != nil {
		t.Fatal(err)
	}
	yml := minimal + "otlp_metrics:\n  endpoint: https://tenant:" + pass + "@otel.example:4318/v1/metrics?api_key=" + pass +
		"\n  interval: 30s\n  http_client_config:\n    http_headers:\n      X-Api-Key: {secrets: [\"${OTLP_METRICS_KEY}\"]}\n      X-Tenant: {files: [tenant]}\n"
	c, err := Load([]byte(yml), filepath.Join(dir, "c.yml"))
	if err != nil {
		t.Fatal(err)
	}
	m := c.OTLPMetrics
	if m.PushInterval() != 30*time.Second || m.PushTimeout() != DefaultOTLPMetricsTimeout || !m.Translate() || m.HTTPClientConfig.FollowRedirects {
		t.Errorf("section %+v", m)
	}
	if got := m.HTTPClientConfig.HTTPHeaders.Headers["X-Tenant"].Files; len(got) != 1 || got[0] != filepath.Join(dir, "tenant") {
		t.Errorf("header file %v not resolved against the config's directory", got)
	}
	out := c.String()
	for _, s := range []string{pass, "otlp-metrics-key-36", "tenant:"} {
		if strings.Contains(out, s) {
			t.Errorf("%q in marshalled config:\n%s", s, out)
		}
	}
	for bad, want := range map[string]string{
		"otlp_metrics:\n  endpoint: ftp://tenant:" + pass + "@otel.example/\n":                            "otlp_metrics.endpoint",
		"otlp_metrics:\n  endpoint: http://otel:4318/v1/metrics\n  interval: 10ms\n":                      "otlp_metrics.interval",
		"otlp_metrics:\n  endpoint: http://otel:4318/v1/metrics\n  timeout: -1s\n":                        "otlp_metrics.timeout",
		"otlp_metrics:\n  endpoint: http://o/\n  http_client_config: {authorization: {credentials: x}}\n": "inline secrets are not allowed",
	} {
		_, err := Load([]byte(minimal+bad), "t.yml")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), pass) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%q: error %v, want one line naming %s without the password", bad, err, want)
		}
	}
}
