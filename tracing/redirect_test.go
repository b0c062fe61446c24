package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	promcfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/config"
)

// The exporter follows no redirect: before, a 307 to another port got the
// export with its headers (a vendor's API key). Errors never show the
// endpoint's credentials.
func TestExportRedirectKeepsSecrets(t *testing.T) {
	const key, pass = "otlp-key-b22b", "otlp-pass-b22b"
	var sunk atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sunk.Add(1)
		if strings.Contains(r.Header.Get("X-Api-Key"), key) {
			t.Error("the sink got the API key")
		}
	}))
	defer sink.Close()
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, sink.URL+"/v1/traces", http.StatusTemporaryRedirect)
	}))
	defer otlp.Close()
	endpoint := strings.Replace(otlp.URL, "http://", "http://user:"+pass+"@", 1) + "/v1/traces?token=" + pass
	x, err := New(config.Tracing{OTLPEndpoint: endpoint, Headers: map[string]promcfg.Secret{"X-Api-Key": key}}, "v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = x.Shutdown(context.Background()) }()
	r := probe(t, llmServer(t, http.StatusOK, new(string)).URL)
	x.Export(r)
	err = x.ForceFlush(context.Background())
	if n := sunk.Load(); n != 0 {
		t.Errorf("the redirect was followed: the sink got %d requests", n)
	}
	if err != nil && strings.Contains(err.Error(), pass) {
		t.Errorf("the error shows the endpoint's password: %v", err)
	}
}
