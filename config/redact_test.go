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
