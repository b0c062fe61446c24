package main

import (
	"net/http"
	"strings"
)

// hostileKind is one hostile target: what its server does and the failure
// reasons a probe of it may end with.
type hostileKind struct {
	name    string
	what    string
	expect  []string // "timeout" also admits the phased timeout_* reasons
	handler http.HandlerFunc
}

// hostileKinds are the thirteen targets, one per kind, in the order of
// docs/reliability.md. The redirect's handler is built by the server,
// which knows where it points.
var hostileKinds = []hostileKind{
	{"tokens", "1,000 valid tiny events per write, forever, no [DONE]", []string{"limit_exceeded"}, tokensForever},
	{"gzip_bomb", "the same, gzip-compressed (Content-Encoding: gzip)", []string{"limit_exceeded"}, gzipBomb},
	{"long_line", "`data: ` and then x forever, never a newline", []string{"limit_exceeded"}, endlessLine},
	{"many_choices", "1 MiB events of 38,000 choices each, forever", []string{"timeout"}, manyChoices},
	{"redirect", "302 to another loopback server; the target sends a secret header", []string{"redirect"}, nil},
	{"html", "an HTML error page as text/event-stream", []string{"malformed_chunk"}, htmlPage},
	{"no_headers", "reads the request, never answers", []string{"timeout"}, noHeaders},
	{"keep_alive", "`: keep-alive` comments every 5ms, forever", []string{"timeout"}, keepAlive},
	{"drip", "a valid endless stream, one byte every 5ms", []string{"timeout"}, drip},
	{"reset", "headers and 3 events, then a TCP reset (SO_LINGER 0)", []string{"stream_broken"}, resetMidStream},
	{"bad_usage", "a complete stream whose usage says prompt_tokens -15", []string{"invalid_usage"}, badUsage},
	{"not_http", "an SSH banner instead of an HTTP response", []string{"protocol_error"}, notHTTP},
	{"huge_headers", "a 10 MB response header, then a valid stream", []string{"limit_exceeded"}, hugeHeaders},
}

// expected reports whether reason is one that kind k may fail with.
func (k hostileKind) expected(reason string) bool {
	for _, e := range k.expect {
		if reason == e || (e == "timeout" && strings.HasPrefix(reason, "timeout_")) {
			return true
		}
	}
	return false
}

// redirectSecret is the header the redirect target is configured with; the
// server redirected to fails the run if it ever receives it.
const (
	redirectHeader = "X-Api-Key"
	redirectSecret = "hostile-soak-s3cret"
)
