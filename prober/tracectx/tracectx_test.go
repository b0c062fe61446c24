package tracectx

import (
	"net/http"
	"regexp"
	"testing"
)

var traceparentRe = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-01$`)

// A 16-hex-digit probe id becomes the trace id, left-padded; any other id
// (and the invalid all-zero one) gets a random trace id; the header is a
// sampled W3C traceparent, and none is sent without a trace.
func TestNewAndHeader(t *testing.T) {
	tc := New("0123456789abcdef")
	if tc.TraceID != "00000000000000000123456789abcdef" || len(tc.SpanID) != 16 {
		t.Errorf("padded: %+v", tc)
	}
	for _, id := range []string{"probe-1", "0000000000000000", "0123456789ABCDEF"} {
		if tc := New(id); !traceparentRe.MatchString(tc.Traceparent()) || tc.TraceID[:16] == "0000000000000000" {
			t.Errorf("%s: %+v", id, tc)
		}
	}
	h := http.Header{}
	SetHeader(h, TraceContext{})
	if h.Get("traceparent") != "" {
		t.Error("traceparent without a trace")
	}
	SetHeader(h, tc)
	if m := traceparentRe.FindStringSubmatch(h.Get("traceparent")); m == nil || m[1] != tc.TraceID || m[2] != tc.SpanID {
		t.Errorf("header %q for %+v", h.Get("traceparent"), tc)
	}
}
