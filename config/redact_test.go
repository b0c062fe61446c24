package config

import (
	"os"
	"strings"
	"testing"
)

func TestRedactedHidesSecrets(t *testing.T) {
	c := loadGood(t)
	out := c.String()
	secrets := []string{envToken, envHeader}
	for _, f := range []string{"testdata/secrets/sglang-password", "testdata/secrets/metrics-token"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, strings.TrimSpace(string(b)))
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("secret %q in marshalled config:\n%s", s, out)
		}
	}
	// Two env secrets, shown redacted; file secrets show their paths.
	if n := strings.Count(out, "<secret>"); n != 2 {
		t.Errorf("%d <secret> markers, want 2:\n%s", n, out)
	}
	for _, want := range []string{"password_file: testdata/secrets/sglang-password", "output_regex: (?i)paris", "interval: 15s"} {
		if !strings.Contains(out, want) {
			t.Errorf("marshalled config lacks %q:\n%s", want, out)
		}
	}
}

// tracing.otlp_endpoint's user info and query values are hidden on
// /config and in its errors; they showed in clear.
func TestRedactedHidesTracingEndpoint(t *testing.T) {
	const pass = "otlp-pass-b22b"
	t.Setenv("OTLP_KEY", "otlp-key-b22b")
	yml := minimal + "tracing:\n  otlp_endpoint: https://tenant:" + pass + "@otel.example:4318/v1/traces?api_key=" + pass + "\n  headers: {X-Api-Key: \"${OTLP_KEY}\"}\n"
	out := mustLoad(t, yml).String()
	for _, s := range []string{pass, "otlp-key-b22b", "tenant"} {
		if strings.Contains(out, s) {
			t.Errorf("%q in marshalled config:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "otlp_endpoint: https://xxxxx@otel.example:4318/v1/traces?api_key=xxxxx") {
		t.Errorf("endpoint not shown redacted:\n%s", out)
	}
	bad := minimal + "tracing:\n  otlp_endpoint: ftp://tenant:" + pass + "@otel.example/\n"
	if _, err := Load([]byte(bad), "t.yml"); err == nil || strings.Contains(err.Error(), pass) {
		t.Errorf("Load error %v: want one without the password", err)
	}
}
