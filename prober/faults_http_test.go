package prober

import (
	"net/http"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/mockvllm"
)

func TestFaultHTTPStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
		want Reason
		msg  string // part of the error message
	}{
		{"401", statusServer(http.StatusUnauthorized), ReasonHTTP4xx, "HTTP 401"},
		{"403", statusServer(http.StatusForbidden), ReasonHTTP4xx, "HTTP 403"},
		{"404 unknown model", func(t *testing.T) string {
			return mockWithFault(t, mockvllm.FaultNone, func(o *mockvllm.Options) { o.Model = "another-model" })
		}, ReasonHTTP4xx, "HTTP 404"},
		{"429 Retry-After", func(t *testing.T) string { return mockWithFault(t, mockvllm.FaultRateLimit) }, ReasonRateLimited, "Retry-After 1"},
		{"500", func(t *testing.T) string { return mockWithFault(t, mockvllm.FaultError500) }, ReasonHTTP5xx, "HTTP 500"},
		{"503", func(t *testing.T) string { return mockWithFault(t, mockvllm.FaultError503) }, ReasonHTTP5xx, "HTTP 503"},
		{"200 application/json", func(t *testing.T) string { return mockWithFault(t, mockvllm.FaultNotSSE) }, ReasonNotEventStream, "application/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			leakCheck(t)
			cl := faultClient(t, commoncfg.DefaultHTTPClientConfig)
			r := probeFault(t, cl, c.url(t), chatModule(), 5*time.Second, c.want)
			errContains(t, r, c.msg)
			stillResponsive(t, cl)
		})
	}
}

func statusServer(code int) func(t *testing.T) string {
	return func(t *testing.T) string {
		return handlerServer(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(`{"error":{"message":"nope","type":"auth_error"}}`))
		})
	}
}

func TestFaultHeadersNeverSent(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, func(_ http.ResponseWriter, r *http.Request) { waitDone(r) })
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, c, url, chatModule(), time.Second, ReasonTimeoutHeaders)
	if r.HTTPStatus != 0 {
		t.Errorf("status %d without headers", r.HTTPStatus)
	}
	stillResponsive(t, c)
}

func TestFaultStallAfterHeaders(t *testing.T) {
	leakCheck(t)
	url := mockWithFault(t, mockvllm.FaultStall)
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, c, url, chatModule(), time.Second, ReasonTimeoutFirstToken)
	if r.HTTPStatus != http.StatusOK || r.HasTTFT {
		t.Errorf("status %d, TTFT %v: want headers and no token", r.HTTPStatus, r.HasTTFT)
	}
	stillResponsive(t, c)
}

func TestFaultStallMidStream(t *testing.T) {
	leakCheck(t)
	url := mockWithFault(t, mockvllm.FaultStallMid)
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	r := probeFault(t, c, url, chatModule(), time.Second, ReasonTimeoutDecode)
	if !r.HasTTFT {
		t.Error("no first token before the stall")
	}
	stillResponsive(t, c)
}
