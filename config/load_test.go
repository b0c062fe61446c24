package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
)

const (
	envToken  = "env-secret-token-123"
	envHeader = "env-secret-header-456"
)

func loadGood(t *testing.T) *Config {
	t.Helper()
	t.Setenv("LLM_PROBER_TEST_TOKEN", envToken)
	t.Setenv("LLM_PROBER_TEST_HEADER", envHeader)
	c, err := LoadFile("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustLoad(t *testing.T, yml string) *Config {
	t.Helper()
	c, err := Load([]byte(yml), "test.yml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const minimal = `
modules:
  m:
    messages: [{role: user, content: hi}]
targets:
  - name: t
    url: http://127.0.0.1:8000/
    model: x
    modules: [m]
`

func TestDefaults(t *testing.T) {
	c := mustLoad(t, minimal)
	g := c.Global
	if g.Interval != model.Duration(DefaultInterval) || g.Timeout != model.Duration(DefaultTimeout) || g.MaxConcurrentProbes != DefaultMaxConcurrentProbes {
		t.Errorf("global defaults: %+v", g)
	}
	m := c.Modules["m"]
	if m.Name != "m" || m.Line != 3 || m.API != APIChat || m.MaxTokens != DefaultMaxTokens {
		t.Errorf("module defaults: %+v", m)
	}
	if !*m.StreamOptions.IncludeUsage || !*m.StreamOptions.ContinuousUsageStats {
		t.Errorf("stream_options defaults: %+v", m.StreamOptions)
	}
	tg := c.Targets[0]
	if tg.Line != 6 || tg.Backend != backend.Auto || tg.URL != "http://127.0.0.1:8000" {
		t.Errorf("target: line %d backend %q url %q", tg.Line, tg.Backend, tg.URL)
	}
	if tg.Interval != g.Interval || tg.Timeout != g.Timeout {
		t.Errorf("target interval/timeout %s/%s, want the global ones", tg.Interval, tg.Timeout)
	}
	hc := tg.HTTPClientConfig
	if hc.FollowRedirects || hc.EnableHTTP2 || hc.TLSConfig.InsecureSkipVerify {
		t.Errorf("http client defaults: %+v", hc)
	}
	sm := tg.ServerMetrics
	if sm.Enabled || sm.Path != "/metrics" || sm.Interval != tg.Interval || sm.Timeout != model.Duration(10*time.Second) {
		t.Errorf("server_metrics defaults: %+v", sm)
	}
	if tg.ServerMetricsHTTPClientConfig() != &tg.HTTPClientConfig {
		t.Error("server metrics should use the target's client config")
	}
}

// An unset timeout leaves a fifth of its interval free, so that a probe
// that times out ends before its next slot (which it would otherwise skip).
func TestInheritedTimeoutFitsInterval(t *testing.T) {
	c := mustLoad(t, "global: {interval: 10s}\n"+minimal+"    interval: 4s\n    server_metrics: {interval: 3s}\n")
	tg := c.Targets[0]
	got := []model.Duration{c.Global.Timeout, tg.Timeout, tg.ServerMetrics.Timeout}
	want := []model.Duration{model.Duration(8 * time.Second), model.Duration(3200 * time.Millisecond), model.Duration(2400 * time.Millisecond)}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("timeouts %v, want %v", got, want)
		}
	}
}

func TestGood(t *testing.T) {
	c := loadGood(t)
	if len(c.Targets) != 3 || len(c.Modules) != 3 {
		t.Fatalf("%d targets, %d modules", len(c.Targets), len(c.Modules))
	}
	v := c.TargetByName("vllm-llama-8b")
	if v.HTTPClientConfig.Authorization == nil || string(v.HTTPClientConfig.Authorization.Credentials) != envToken {
		t.Errorf("authorization from env: %+v", v.HTTPClientConfig.Authorization)
	}
	if got := v.HTTPClientConfig.TLSConfig.CAFile; got != filepath.Join("testdata", "certs", "ca.pem") {
		t.Errorf("ca_file %q not resolved against the config's directory", got)
	}
	if !v.ServerMetrics.Passthrough[0].MatchFull("vllm:num_requests_running") || v.ServerMetrics.Passthrough[0].MatchFull("vllm:num_requests_running_total") {
		t.Error("passthrough should match full names only")
	}
	s := c.TargetByName("sglang.qwen:7b")
	if got := s.HTTPClientConfig.BasicAuth.PasswordFile; got != filepath.Join("testdata", "secrets", "sglang-password") {
		t.Errorf("password_file %q", got)
	}
	if got := s.HTTPClientConfig.HTTPHeaders.Headers["X-Api-Key"].Secrets; len(got) != 1 || string(got[0]) != envHeader {
		t.Errorf("header secret from env: %q", got)
	}
	// The merge key keeps the anchor's ca_file and adds server_name.
	if tc := s.HTTPClientConfig.TLSConfig; tc.ServerName != "sglang.internal" || tc.CAFile == "" {
		t.Errorf("merged tls_config: %+v", tc)
	}
	if s.ServerMetricsHTTPClientConfig() == &s.HTTPClientConfig || s.ServerMetrics.Timeout != s.Interval*4/5 {
		t.Errorf("server_metrics override: %+v", s.ServerMetrics)
	}
	chat := c.Modules["chat"]
	if *chat.StreamOptions.ContinuousUsageStats || !*chat.StreamOptions.IncludeUsage {
		t.Errorf("stream_options: %+v", chat.StreamOptions)
	}
	if !chat.Validators.OutputRegex.MatchString("The capital is Paris.") {
		t.Error("output_regex should search, not match the whole text")
	}
	if got := c.Modules["long_decode"].ExtraBody["logit_bias"]; got == nil {
		t.Error("extra_body lost nested values")
	}
	if l := c.TargetByName("llamacpp_local"); l.Interval != c.Global.Interval || l.HTTPClientConfig.FollowRedirects {
		t.Errorf("llamacpp target: %+v", l)
	}
}

func TestEnvExpandedOnlyInSecretFields(t *testing.T) {
	t.Setenv("LLM_PROBER_TEST_MODEL", "should-not-appear")
	c := mustLoad(t, strings.Replace(minimal, "model: x", "model: ${LLM_PROBER_TEST_MODEL}", 1))
	if got := c.Targets[0].Model; got != "${LLM_PROBER_TEST_MODEL}" {
		t.Errorf("model %q was expanded", got)
	}
}

// An anchor shared by two targets must be expanded for both: expansion
// works on a copy, so the second target does not see a literal secret.
func TestEnvSecretInSharedAnchor(t *testing.T) {
	t.Setenv("LLM_PROBER_TEST_TOKEN", envToken)
	c := mustLoad(t, minimal+`    http_client_config: &hc
      authorization: {credentials: "${LLM_PROBER_TEST_TOKEN}"}
  - name: u
    url: http://127.0.0.1:8001
    model: x
    modules: [m]
    http_client_config: *hc
`)
	for _, tg := range c.Targets {
		if a := tg.HTTPClientConfig.Authorization; a == nil || string(a.Credentials) != envToken {
			t.Errorf("%s: authorization %+v", tg.Name, a)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	_, err := Load(nil, "empty.yml")
	if want := "empty.yml:1: targets: at least one target is required"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestEmptyEnvSecretIsAnError(t *testing.T) {
	t.Setenv("LLM_PROBER_TEST_EMPTY", "")
	_, err := Load([]byte(minimal+"    http_client_config: {authorization: {credentials: '${LLM_PROBER_TEST_EMPTY}'}}\n"), "x.yml")
	want := "x.yml:10: targets[0].http_client_config.authorization.credentials: environment variable LLM_PROBER_TEST_EMPTY is not set"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
