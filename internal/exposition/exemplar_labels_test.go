package exposition

import (
	"strings"
	"testing"
)

func TestEachExemplarLabel(t *testing.T) {
	for _, c := range []struct{ names, values, want string }{
		{"probe_id", "abc", "probe_id=abc"},
		{"probe_id,trace_id", "abc\x00def", "probe_id=abc trace_id=def"},
		{"probe_id,trace_id", "abc", "probe_id=abc"},     // no trace id
		{"probe_id,trace_id", "\x00def", "trace_id=def"}, // an empty value is left out
		{"probe_id", "abc\x00def", "probe_id=abc"},       // more values than names
		{"probe_id,trace_id", "", ""},
	} {
		var got []string
		eachExemplarLabel(c.names, c.values, func(n, v string) { got = append(got, n+"="+v) })
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q %q: got %q, want %q", c.names, c.values, got, c.want)
		}
	}
}
