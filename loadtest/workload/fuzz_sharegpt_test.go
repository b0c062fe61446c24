package workload

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzShareGPT: any bytes as a ShareGPT file never panic, and what the
// streaming reader accepts, encoding/json (which it replaced) reads the
// same: the same conversations, turns and strings. encoding/json reading
// a file the reader refuses is allowed only where the reader is the
// stricter on purpose (a file, conversation or turn that is null, not
// an array or object).
func FuzzShareGPT(f *testing.F) {
	for _, s := range []string{
		`[]`,
		`[{"conversations": [{"from": "human", "value": "a \"quoted\" \u00e9 line\nnext"}, {"from": "gpt", "value": "ok"}]}]`,
		`[{"id": "x", "meta": {"a": [1, {"b": "]}"}]}, "Conversations": [{"FROM": "human", "Value": null, "extra": true}]}, {"conversations": null}]`,
		`[{"conversations": []}, {}, {"conversations": [{"from": "gpt", "value": "", "from": "human"}]}]`,
		`[{"conversations": [{"from": "human", "value": "x"}], "conversations": [{"value": "y"}]}]`,
		"[{\"conversations\": [{\"value\": \"\xff\xfe a \\ud800 b\"}]}]",
		`[{"conversations": [{"from": 5}]}]`,
		`[{"conversations": {"from": "human"}}, 7]`,
		`[null, {"conversations": [null]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeShareGPT(bytes.NewReader(b))
		want, null, refErr := shareGPTByEncodingJSON(b)
		if err != nil {
			if refErr == nil && !null {
				t.Fatalf("%q: the reader refused (%v), encoding/json read %+v", b, err, want)
			}
			return
		}
		if refErr != nil {
			t.Fatalf("%q: the reader read %+v, encoding/json refused: %v", b, got, refErr)
		}
		if len(got) != len(want) || !sameEntries(got, want) {
			t.Fatalf("%q:\n the reader %+v\nencoding/json %+v", b, got, want)
		}
	})
}

// shareGPTByEncodingJSON decodes b with encoding/json, each turn into a
// fresh value: decoding a repeated "conversations" key into the same
// slice, encoding/json keeps the first list's fields where the second
// omits them, a quirk the reader does not copy (the last key wins).
// null reports a null file, conversation or turn, which the reader
// refuses.
func shareGPTByEncodingJSON(b []byte) (out []shareGPTEntry, null bool, err error) {
	var raw []*struct {
		Conversations []json.RawMessage `json:"conversations"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&raw); err != nil {
		return nil, false, err
	}
	null = raw == nil // the file is null
	for _, r := range raw {
		var e shareGPTEntry
		if r == nil {
			null = true
			out = append(out, e)
			continue
		}
		for _, c := range r.Conversations {
			null = null || string(c) == "null"
			var turn struct {
				From  string `json:"from"`
				Value string `json:"value"`
			}
			if err := json.Unmarshal(c, &turn); err != nil {
				return nil, null, err
			}
			e.Conversations = append(e.Conversations, turn)
		}
		out = append(out, e)
	}
	return out, null, nil
}
