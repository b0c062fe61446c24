package workload

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The streaming ShareGPT reader reads what encoding/json (which it
// replaced) read: escapes, unknown keys and nested values skipped, keys
// matched case-insensitively, null strings empty, all turns kept.
func TestShareGPTDecodeAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`[]`,
		`[{"conversations": [{"from": "human", "value": "a \"quoted\" \u00e9 line\nnext"}, {"from": "gpt", "value": "ok"}]}]`,
		`[{"id": "x", "meta": {"a": [1, {"b": "]}"}]}, "Conversations": [{"FROM": "human", "Value": null, "extra": true}]}, {"conversations": null}]`,
		`[{"conversations": []}, {}, {"conversations": [{"from": "gpt", "value": "", "from": "human"}]}]`,
	} {
		var want []shareGPTEntry
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, err := decodeShareGPT(strings.NewReader(in))
		if err != nil || len(got) != len(want) || !sameEntries(got, want) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		`{"conversations": []}`:                    "not a ShareGPT JSON array",
		"[{\"conversations\": [\n{\"from\": 5}]}]": "line 2: conversation 1: want a string",
		`[{"conversations": [{"from": "human"}`:    "it ends inside conversation 1",
		`[{"conversations": {"from": "human"}}]`:   `want "conversations" as an array`,
		`[{"conversations": [{"value": "x"}]}, 7]`: "conversation 2 is not an object",
	} {
		if _, err := decodeShareGPT(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", in, err, msg)
		}
	}
}

// sameEntries compares turns, an empty list and none alike.
func sameEntries(a, b []shareGPTEntry) bool {
	for i := range a {
		if len(a[i].Conversations) != len(b[i].Conversations) ||
			len(a[i].Conversations) > 0 && !reflect.DeepEqual(a[i].Conversations, b[i].Conversations) {
			return false
		}
	}
	return true
}
