package httpclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ErrRedirectRefused is wrapped by the error of a request whose redirect
// CheckRedirect refused.
var ErrRedirectRefused = errors.New("redirect refused")

// maxRedirects is net/http's own limit.
const maxRedirects = 10

// CheckRedirect follows a redirect only to the scheme, host and port of
// the original request, with its method unchanged. The config's
// credentials (authorization, basic auth, OAuth2 and every http_headers
// entry, secrets included) are added to each request by the client's
// round trippers, which cannot tell a redirect from the original: following
// one to another origin would hand them to whoever the Location names.
// And a 301/302/303 that turns a POST probe into a GET would measure
// something else than the configured request.
//
// A refused redirect is an error naming the Location, not the 3xx response
// (http.ErrUseLastResponse): the user asked for redirects to be followed,
// so not following one is a failure, and the Location is what they need
// to fix the target's URL.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	loc := req.URL.Redacted()
	switch {
	case len(via) >= maxRedirects:
		return fmt.Errorf("%w: stopped after %d redirects, the last to %s", ErrRedirectRefused, len(via), loc)
	case !sameOrigin(req.URL, first.URL):
		return fmt.Errorf("%w: %s is not on %s://%s, and the target's credentials must not go there",
			ErrRedirectRefused, loc, first.URL.Scheme, first.URL.Host)
	case req.Method != first.Method:
		return fmt.Errorf("%w: following the redirect to %s would turn the %s into a %s",
			ErrRedirectRefused, loc, first.Method, req.Method)
	}
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
