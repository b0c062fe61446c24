package httpclient_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/httpclient"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// seen is what a server got: the headers that carry client config, the
// protocol, and whether it came through the proxy.
type seen struct {
	mu   sync.Mutex
	reqs []string
}

func (s *seen) add(via string, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, fmt.Sprintf("%s %s %s %s auth=%q key=%q ua=%q", via, r.Method, r.URL.Path, r.Proto,
		r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("User-Agent")))
}

func (s *seen) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.reqs
	s.reqs = nil
	return out
}

// NewLean must give the requests New gives, for every part of the client
// config it covers: auth of each kind from text and files, headers from
// files, OAuth2, the CA and a client certificate from files, a proxy, and
// both redirect policies.
func TestNewLeanSendsWhatNewSends(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tokenFile := write("token", "tok-from-file\n")
	passFile := write("pass", "pw")
	keyFile := write("key", "key-from-file")

	var got seen
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			_ = r.ParseForm()
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"oauth-`+r.Form.Get("client_id")+`","token_type":"Bearer"}`)
			return
		}
		got.add("direct", r)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/landed", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	pki := testutil.NewPKI(t, "127.0.0.1")
	tlsSrv := httptest.NewUnstartedServer(handler)
	tlsSrv.EnableHTTP2 = true
	tlsSrv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Cert}}
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	tlsURL := tlsSrv.URL
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.add("proxy", r)
		_, _ = io.WriteString(w, "proxied")
	}))
	defer proxy.Close()

	cases := []struct {
		name, yaml, url string
	}{
		{"none", `{}`, plain.URL},
		{"bearer file", `authorization: {credentials_file: ` + tokenFile + `}`, plain.URL},
		{"authorization type", `authorization: {type: Token, credentials: abc}`, plain.URL},
		{"basic auth file", `basic_auth: {username: u, password_file: ` + passFile + `}`, plain.URL},
		{"headers", `{follow_redirects: false, http_headers: {X-Api-Key: {files: [` + keyFile + `]}}}`, plain.URL},
		{"headers, redirects followed", `http_headers: {X-Api-Key: {values: [v]}}`, plain.URL + "/redirect"},
		{"oauth2", `oauth2: {client_id: cid, client_secret: cs, token_url: ` + plain.URL + `/token}`, plain.URL},
		{"tls ca file", `tls_config: {ca_file: ` + pki.CAFile + `}`, tlsURL},
		{"tls ca file http2", `{enable_http2: true, tls_config: {ca_file: ` + pki.CAFile + `}}`, tlsURL},
		{"tls no http2", `{enable_http2: false, tls_config: {ca_file: ` + pki.CAFile + `}}`, tlsURL},
		{"proxy", `{proxy_url: ` + proxy.URL + `, proxy_connect_header: {X-P: [v]}}`, plain.URL},
		{"no redirects", `{follow_redirects: false}`, plain.URL + "/redirect"},
		{"same-origin redirects", `{follow_redirects: true}`, plain.URL + "/redirect"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := commoncfg.DefaultHTTPClientConfig
			if err := yaml.Unmarshal([]byte(tc.yaml), &cfg); err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			var results [2][]string
			for i, build := range []func(commoncfg.HTTPClientConfig, time.Duration, httpclient.DialFunc) (*http.Client, error){httpclient.New, httpclient.NewLean} {
				c, err := build(cfg, time.Minute, nil)
				if err != nil {
					t.Fatal(err)
				}
				for range 2 { // the second on a reused connection
					resp, err := c.Get(tc.url)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					_ = resp.Body.Close()
					results[i] = append(results[i], fmt.Sprintf("%d %s", resp.StatusCode, body))
				}
				results[i] = append(results[i], got.take()...)
				c.CloseIdleConnections()
			}
			if strings.Join(results[0], "\n") != strings.Join(results[1], "\n") {
				t.Errorf("New:\n%s\nNewLean:\n%s", strings.Join(results[0], "\n"), strings.Join(results[1], "\n"))
			}
			if len(results[0]) < 3 {
				t.Errorf("the server saw nothing: %q", results[0])
			}
		})
	}
}

// NewLean composes the library's round trippers for the fields of
// HTTPClientConfig that prometheus/common v0.72.1 has; a field added by an
// upgrade must be looked at there (and added here) before it is trusted.
func TestNewLeanKnowsEveryConfigField(t *testing.T) {
	known := map[string]bool{"BasicAuth": true, "Authorization": true, "OAuth2": true, "BearerToken": true,
		"BearerTokenFile": true, "TLSConfig": true, "FollowRedirects": true, "EnableHTTP2": true,
		"ProxyConfig": true, "HTTPHeaders": true}
	typ := reflect.TypeFor[commoncfg.HTTPClientConfig]()
	for i := range typ.NumField() {
		if f := typ.Field(i); !known[f.Name] {
			t.Errorf("HTTPClientConfig.%s is new: does httpclient.NewLean apply it as NewClientFromConfig does?", f.Name)
		}
	}
}
