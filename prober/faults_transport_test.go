package prober

import (
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	commoncfg "github.com/prometheus/common/config"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

func TestFaultConnectionRefused(t *testing.T) {
	leakCheck(t)
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	probeFault(t, c, "http://"+closedAddr(t), chatModule(), 5*time.Second, ReasonConnect)
	stillResponsive(t, c)
}

func TestFaultDNS(t *testing.T) {
	leakCheck(t)
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	// .invalid never resolves (RFC 6761), with or without a resolver.
	probeFault(t, c, "http://llm.prober-test.invalid:8000", chatModule(), 10*time.Second, ReasonDNS)
	stillResponsive(t, c)
}

func TestFaultTLSUntrustedCert(t *testing.T) {
	leakCheck(t)
	srv := httptest.NewTLSServer(sseHandler(goodStream()))
	t.Cleanup(srv.Close)
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	probeFault(t, c, srv.URL, chatModule(), 5*time.Second, ReasonTLS)
	stillResponsive(t, c)
}

func TestFaultTLSWrongHostName(t *testing.T) {
	leakCheck(t)
	pki := testutil.NewPKI(t, "other.example")
	url := pki.ServeTLS(t, sseHandler(goodStream()))
	hc := commoncfg.DefaultHTTPClientConfig
	hc.TLSConfig = commoncfg.TLSConfig{CAFile: pki.CAFile}
	c := faultClient(t, hc)
	r := probeFault(t, c, url, chatModule(), 5*time.Second, ReasonTLS)
	var hostErr x509.HostnameError
	if !errors.As(r.Err, &hostErr) {
		t.Errorf("error %v is not a host name mismatch", r.Err)
	}

	// Control: the same CA with the name the certificate is for works,
	// so the failure above was the name, not the CA.
	hc.TLSConfig.ServerName = "other.example"
	probeFault(t, faultClient(t, hc), url, chatModule(), 5*time.Second, ReasonNone)
}

func TestFaultTLSHandshakeStall(t *testing.T) {
	leakCheck(t)
	// Accepts TCP, never answers the ClientHello.
	addr := rawServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	probeFault(t, c, "https://"+addr, chatModule(), time.Second, ReasonTimeoutConnect)
	stillResponsive(t, c)
}

// TLS spoken to a plain-HTTP server is a TLS failure, not "other".
func TestFaultTLSToPlainHTTP(t *testing.T) {
	leakCheck(t)
	url := handlerServer(t, sseHandler(goodStream()))
	c := faultClient(t, commoncfg.DefaultHTTPClientConfig)
	probeFault(t, c, "https"+url[len("http"):], chatModule(), 5*time.Second, ReasonTLS)
}
