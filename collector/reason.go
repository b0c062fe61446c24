package collector

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	"github.com/llm-prober/llm-prober/httpclient"
)

// Failure reasons: a fixed set so that scrape_failures_total stays bounded.
const (
	reasonTimeout       = "timeout"          // scrape timeout hit (connect, headers or body)
	reasonConnect       = "connect"          // DNS, refused, reset, or the body broke off
	reasonTLS           = "tls"              // handshake or certificate failure
	reasonHTTPStatus    = "http_status"      // any status other than 200
	reasonTooLarge      = "too_large"        // body over MaxBodyBytes (after gunzip too)
	reasonDecode        = "decode"           // bad gzip stream
	reasonParse         = "parse"            // not the Prometheus text format (HTML, bad lines)
	reasonDuplicate     = "duplicate_series" // the same series twice: we would export it twice
	reasonTooManySeries = "too_many_series"  // over MaxParsedSeries samples of wanted families
	reasonClientConfig  = "client_config"    // the HTTP client could not be built (e.g. unreadable ca_file)
	reasonOther         = "other"
)

var allReasons = []string{reasonTimeout, reasonConnect, reasonTLS, reasonHTTPStatus,
	reasonTooLarge, reasonDecode, reasonParse, reasonDuplicate, reasonTooManySeries, reasonClientConfig, reasonOther}

// scrapeError is a failed scrape with its reason.
type scrapeError struct {
	reason string
	err    error
}

func (e *scrapeError) Error() string { return e.reason + ": " + e.err.Error() }
func (e *scrapeError) Unwrap() error { return e.err }

func failf(reason, format string, args ...any) *scrapeError {
	return &scrapeError{reason: reason, err: fmt.Errorf(format, args...)}
}

// classify maps a transport or body-read error to a reason.
func classify(err error) *scrapeError {
	var (
		netErr  net.Error
		tlsRec  tls.RecordHeaderError
		tlsCert *tls.CertificateVerificationError
		unkAuth x509.UnknownAuthorityError
		hostErr x509.HostnameError
		certInv x509.CertificateInvalidError
		opErr   *net.OpError
		dnsErr  *net.DNSError
	)
	switch {
	case errors.Is(err, httpclient.ErrRedirectRefused):
		return &scrapeError{reasonHTTPStatus, err} // a 3xx we would not follow
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return &scrapeError{reasonTimeout, err}
	case errors.As(err, &tlsRec), errors.As(err, &tlsCert), errors.As(err, &unkAuth),
		errors.As(err, &hostErr), errors.As(err, &certInv):
		return &scrapeError{reasonTLS, err}
	case errors.As(err, &opErr), errors.As(err, &dnsErr):
		return &scrapeError{reasonConnect, err}
	default:
		return &scrapeError{reasonOther, err}
	}
}
