package prober

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/httpclient"
)

// A probe whose target redirects to another origin must never send the
// target's secret header there, whether redirects are followed or not.
func TestProbeRedirectCarriesNoSecret(t *testing.T) {
	const secret = "probe-secret"
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Api-Key") == secret {
			t.Error("the other origin got the secret")
		}
	}))
	t.Cleanup(other.Close)
	src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(src.Close)
	for _, follow := range []bool{false, true} {
		target := testTarget(src.URL)
		target.HTTPClientConfig = commoncfg.DefaultHTTPClientConfig
		target.HTTPClientConfig.FollowRedirects = follow
		target.HTTPClientConfig.HTTPHeaders = &commoncfg.Headers{Headers: map[string]commoncfg.Header{
			"X-Api-Key": {Secrets: []commoncfg.Secret{secret}},
		}}
		client, err := NewClient(target, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r := Run(ctx, client, target, chatModule(), "probe-1", "test")
		cancel()
		client.CloseIdleConnections()
		if r.Reason != ReasonRedirect {
			t.Errorf("follow=%v: reason %q (%v), want redirect", follow, r.Reason, r.Err)
		}
		if follow && (!errors.Is(r.Err, httpclient.ErrRedirectRefused) || !strings.Contains(r.Err.Error(), other.URL)) {
			t.Errorf("follow=true: err = %v, want the redirect to %s refused", r.Err, other.URL)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}
