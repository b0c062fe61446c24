package httpclient

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	commoncfg "github.com/prometheus/common/config"
)

// Per-connection buffer sizes of NewLean's transport. net/http's default
// (4 KiB each) is sized for bulk bodies; a request here is its headers and
// a JSON prompt, and an SSE chunk is a few hundred bytes, so at thousands
// of connections the defaults are memory for nothing. A body read larger
// than the read buffer bypasses it, and header lines longer than it are
// still read whole (net/textproto joins them).
const (
	leanReadBuffer  = 1 << 10
	leanWriteBuffer = 1 << 10
)

// NewLean builds a client with New's semantics (the config's TLS with
// reloading files, auth, OAuth2, proxy, headers, HTTP/2 choice, redirect
// policy) for a load generator that holds thousands of connections: the
// transport has 1 KiB read and write buffers instead of 4 KiB, and its
// dialer is not wrapped by go-conntrack, whose per-connection
// /debug/events trace log (~8.8 KiB) prometheus/common's
// NewClientFromConfig cannot turn off. The library's own round trippers
// wrap the transport in its order. Configs this builder does not cover
// (secrets by reference, headers with followed redirects) get New's
// client.
//
// The daemon keeps New: its few connections gain nothing, and its
// net_conntrack_dialer_* metrics stay.
func NewLean(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration, dial DialFunc) (*http.Client, error) {
	if !leanCovers(cfg) {
		return New(cfg, keepAlive, dial)
	}
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	opts := []commoncfg.HTTPClientOption{commoncfg.WithIdleConnTimeout(keepAlive), commoncfg.WithDialContextFunc(dial)}
	newRT := func(tlsConfig *tls.Config) (http.RoundTripper, error) {
		return leanChain(cfg, leanTransport(cfg, tlsConfig, keepAlive, dial), opts), nil
	}
	ctx := context.Background()
	tlsConfig, err := commoncfg.NewTLSConfigWithContext(ctx, &cfg.TLSConfig)
	if err != nil {
		return nil, err
	}
	settings := leanTLSSettings(&cfg.TLSConfig)
	var rt http.RoundTripper
	if leanImmutable(settings) {
		rt, err = newRT(tlsConfig)
	} else {
		rt, err = commoncfg.NewTLSRoundTripperWithContext(ctx, tlsConfig, settings, newRT)
	}
	if err != nil {
		return nil, err
	}
	c := &http.Client{Transport: rt}
	if cfg.FollowRedirects {
		c.CheckRedirect = CheckRedirect
	} else {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	return c, nil
}

// leanCovers says whether NewLean reproduces the library's client for cfg:
// secret references need a secret manager (none is configured here), and
// headers with followed redirects need the library's unexported stripper.
func leanCovers(cfg commoncfg.HTTPClientConfig) bool {
	t := cfg.TLSConfig
	if t.CARef != "" || t.CertRef != "" || t.KeyRef != "" {
		return false
	}
	if a := cfg.Authorization; a != nil && a.CredentialsRef != "" {
		return false
	}
	if b := cfg.BasicAuth; b != nil && (b.UsernameRef != "" || b.PasswordRef != "") {
		return false
	}
	if o := cfg.OAuth2; o != nil {
		if o.ClientSecretRef != "" || o.ClientCertificateKeyRef != "" || o.TLSConfig.CARef != "" || o.TLSConfig.CertRef != "" || o.TLSConfig.KeyRef != "" {
			return false
		}
	}
	return cfg.HTTPHeaders == nil || !cfg.FollowRedirects
}

// leanTransport is the library's transport (same pool sizes, timeouts, no
// compression, proxy) with small buffers and the plain dialer.
func leanTransport(cfg commoncfg.HTTPClientConfig, tlsConfig *tls.Config, keepAlive time.Duration, dial DialFunc) *http.Transport {
	t := &http.Transport{
		Proxy:                 cfg.Proxy(),
		ProxyConnectHeader:    cfg.GetProxyConnectHeader(),
		MaxIdleConns:          20000,
		MaxIdleConnsPerHost:   1000,
		TLSClientConfig:       tlsConfig,
		DisableCompression:    true,
		IdleConnTimeout:       keepAlive,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		DialContext:           dial,
		ReadBufferSize:        leanReadBuffer,
		WriteBufferSize:       leanWriteBuffer,
	}
	if cfg.EnableHTTP2 {
		t.Protocols = &http.Protocols{}
		t.Protocols.SetHTTP1(true)
		t.Protocols.SetHTTP2(true)
		t.HTTP2 = &http.HTTP2Config{SendPingTimeout: time.Minute}
	}
	return t
}

// leanChain wraps rt in the library's round trippers, innermost first, as
// NewRoundTripperFromConfig does.
func leanChain(cfg commoncfg.HTTPClientConfig, rt http.RoundTripper, opts []commoncfg.HTTPClientOption) http.RoundTripper {
	if a := cfg.Authorization; a != nil {
		rt = commoncfg.NewAuthorizationCredentialsRoundTripper(a.Type, leanSecret(a.Credentials, a.CredentialsFile), rt)
	}
	if len(cfg.BearerToken) > 0 || len(cfg.BearerTokenFile) > 0 {
		rt = commoncfg.NewAuthorizationCredentialsRoundTripper("Bearer", leanSecret(cfg.BearerToken, cfg.BearerTokenFile), rt)
	}
	if b := cfg.BasicAuth; b != nil {
		rt = commoncfg.NewBasicAuthRoundTripper(leanSecret(commoncfg.Secret(b.Username), b.UsernameFile), leanSecret(b.Password, b.PasswordFile), rt)
	}
	if o := cfg.OAuth2; o != nil {
		cred := leanSecret(o.ClientSecret, o.ClientSecretFile)
		if o.GrantType == "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			cred = leanSecret(o.ClientCertificateKey, o.ClientCertificateKeyFile)
		}
		rt = commoncfg.NewOAuth2RoundTripper(cred, o, rt, opts...)
	}
	if cfg.HTTPHeaders != nil {
		rt = commoncfg.NewHeadersRoundTripper(cfg.HTTPHeaders, rt)
	}
	return rt
}

// leanSecret is the library's toSecret without references (leanCovers
// excludes them): inline text first, then a file read on every request,
// nil for neither.
func leanSecret(text commoncfg.Secret, file string) commoncfg.SecretReader {
	if text != "" {
		return commoncfg.NewInlineSecret(string(text))
	}
	if file != "" {
		return commoncfg.NewFileSecret(file)
	}
	return nil
}

func leanTLSSettings(t *commoncfg.TLSConfig) commoncfg.TLSRoundTripperSettings {
	return commoncfg.TLSRoundTripperSettings{
		CA:   leanSecret(commoncfg.Secret(t.CA), t.CAFile),
		Cert: leanSecret(commoncfg.Secret(t.Cert), t.CertFile),
		Key:  leanSecret(t.Key, t.KeyFile),
	}
}

func leanImmutable(s commoncfg.TLSRoundTripperSettings) bool {
	return (s.CA == nil || s.CA.Immutable()) && (s.Cert == nil || s.Cert.Immutable()) && (s.Key == nil || s.Key.Immutable())
}
