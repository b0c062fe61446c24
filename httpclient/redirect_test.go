package httpclient

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

const secret = "s3cret-header-value"

// clientConfig is a target's client config with a secret header and basic
// auth, as a user writes it.
func clientConfig(t *testing.T, follow bool) commoncfg.HTTPClientConfig {
	t.Helper()
	src := `
basic_auth: {username: u, password: ` + secret + `}
http_headers:
  X-Api-Key:
    secrets: [` + secret + `]
`
	cfg := commoncfg.DefaultHTTPClientConfig
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg.FollowRedirects = follow
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// leakCheck is a loopback server that records whether any request carried
// the secret, in a header or in basic auth.
func leakCheck(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	var hits, leaks atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		for _, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, secret) || strings.Contains(v, "czNjcmV0") /* base64 of "s3cret" */ {
					leaks.Add(1)
				}
			}
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits, &leaks
}

func redirector(t *testing.T, code int, to func() string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to(), code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A target that redirects elsewhere must never get our credentials sent
// there, whether redirects are followed or not.
func TestRedirectToAnotherOriginCarriesNoSecret(t *testing.T) {
	other, hits, leaks := leakCheck(t)
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		src := redirector(t, code, func() string { return other.URL + "/metrics" })
		for _, follow := range []bool{false, true} {
			c, err := New(clientConfig(t, follow), time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Get(src.URL + "/metrics")
			switch {
			case follow && !errors.Is(err, ErrRedirectRefused):
				t.Errorf("%d, follow: err = %v, want the redirect refused", code, err)
			case follow && !strings.Contains(err.Error(), other.URL+"/metrics"):
				t.Errorf("%d, follow: error %q does not name the Location", code, err)
			case !follow && (err != nil || resp.StatusCode != code):
				t.Errorf("%d, no follow: want the %d itself, got %v, %v", code, code, resp, err)
			}
			if resp != nil {
				resp.Body.Close()
			}
			c.CloseIdleConnections()
		}
	}
	if leaks.Load() != 0 || hits.Load() != 0 {
		t.Errorf("the other origin got %d requests, %d carrying the secret", hits.Load(), leaks.Load())
	}
}

// A redirect on the same origin is still followed when asked for; one
// that turns a POST into a GET is not.
func TestRedirectSameOriginFollowedMethodKept(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/v1/completions", http.StatusPermanentRedirect)
		case "/see-other":
			http.Redirect(w, r, "/v1/completions", http.StatusSeeOther)
		default:
			_, _ = w.Write([]byte(r.Method))
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(clientConfig(t, true), time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	resp, err := c.Post(srv.URL+"/moved", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("same-origin 308: %v, %v", resp, err)
	}
	resp.Body.Close()
	_, err = c.Post(srv.URL+"/see-other", "application/json", strings.NewReader("{}"))
	if !errors.Is(err, ErrRedirectRefused) || !strings.Contains(err.Error(), "POST into a GET") {
		t.Errorf("303 from a POST: err = %v, want refused", err)
	}
}

func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"http://h/x", "http://H:80/y", true},
		{"https://h/x", "https://h:443/", true},
		{"http://h/x", "https://h/x", false},
		{"http://h:1/x", "http://h:2/x", false},
		{"http://h/x", "http://h.evil/x", false},
	} {
		req, _ := http.NewRequest(http.MethodGet, c.b, nil)
		via, _ := http.NewRequest(http.MethodGet, c.a, nil)
		if got := CheckRedirect(req, []*http.Request{via}) == nil; got != c.want {
			t.Errorf("%s -> %s: allowed = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
