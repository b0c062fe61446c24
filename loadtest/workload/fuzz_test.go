package workload

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// FuzzTrace: any bytes as a Mooncake or BurstGPT trace never panic, and a
// trace that loads has every request in time order within MaxReplay and
// its lengths in range.
func FuzzTrace(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 40, "output_length": 3, "hash_ids": [7, 8, 9]}` + "\n" + `{"timestamp": 5, "input_length": 40, "output_length": 3}`,
		"Timestamp,Model,Request tokens,Response tokens\n5,ChatGPT,472,18\n6.5,GPT-4,300,40\n",
		"\ufeffTimestamp,Model,Request tokens,Response tokens\r\n1,a,2,3\r\n",
		`{"timestamp": 0, "input_length": 4, "output_length": 2}` + "\n" + `{"timestamp": 1e300, "input_length": 4, "output_length": 2}`,
		`{"timestamp": -1e308, "input_length": 4, "output_length": 2}`,
		`{"Timestamp": 1, "\u0069nput_length": 4, "output_length": 2, "hash_ids": [1, null], "x": {"a": ["]}"]}}`,
		`{"timestamp": 1, "timestamp": null, "input_length": 1.5, "output_length": 2}`,
	} {
		f.Add([]byte(s), false, 1.0)
		f.Add([]byte(s), true, 1e-3)
	}
	f.Fuzz(func(t *testing.T, b []byte, csv bool, scale float64) {
		name := "f.jsonl"
		if csv {
			name = "f.csv"
		}
		if !csv {
			sameAsEncodingJSON(t, b)
		}
		tr, err := readTrace(bytes.NewReader(b), name, TraceOptions{Scale: scale, BlockSize: 16})
		if err != nil {
			return
		}
		var prev time.Duration
		for i := range tr.Len() {
			at := tr.At(i)
			if at < prev || at < 0 || at > MaxReplay {
				t.Fatalf("request %d at %v after %v (max %v)", i, at, prev, MaxReplay)
			}
			prev = at
			if e := tr.store.entry(i); e.in < 1 || e.out < 1 || e.in > maxTraceTokens || e.out > maxTraceTokens {
				t.Fatalf("request %d: lengths %d, %d", i, e.in, e.out)
			}
		}
		if tr.Len() > 0 {
			_ = tr.Item(0) // builds within the caps
		}
	})
}

// FuzzWorkloadFile: any bytes as a --workload-file never panic, and a
// file that loads holds rates, shapes and lengths bench can send.
func FuzzWorkloadFile(f *testing.F) {
	p := filepath.Join(f.TempDir(), "w.json")
	if err := testDerived().Save(p); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(bytes.Replace(good, []byte(`"request_rate": 2.5`), []byte(`"request_rate": 5e-324`), 1))
	f.Add(bytes.Replace(good, []byte(`"hi": `), []byte(`"hi": 1e300, "x": `), 1))
	f.Add([]byte(`{"version": 1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := parseDerivedWorkload(b, "w.json")
		if err != nil {
			return
		}
		if w.RequestRate != 0 && !(w.RequestRate >= MinRate && w.RequestRate <= MaxRate) {
			t.Fatalf("rate %g loaded", w.RequestRate)
		}
		if s := w.Burstiness.Shape; s != 0 && !(s >= MinShape && s <= MaxShape) {
			t.Fatalf("shape %g loaded", s)
		}
		for _, d := range []*LengthDist{&w.Input, &w.Output} {
			if m := d.Max(); !(m > 0 && m <= maxLength) || math.IsNaN(d.Mean) {
				t.Fatalf("lengths up to %g, mean %g loaded", m, d.Mean)
			}
		}
		s := NewSyntheticFrom(w, w.PrefixTokens, 1, nil)
		if n := s.MaxPromptTokens(); n < 1 || n > maxLength+1 {
			t.Fatalf("prompts up to %d tokens", n)
		}
	})
}

// sameAsEncodingJSON: the in-place Mooncake parser reads each line as
// encoding/json does (which it replaced to keep a line's garbage off the
// heap): where json.Unmarshal gives all three fields, so does it, the
// same values; where it refuses or lacks one, so does the parser.
func sameAsEncodingJSON(t *testing.T, b []byte) {
	parse := newMooncake()
	for _, line := range bytes.Split(b, []byte("\n")) {
		var ref struct {
			Timestamp    *float64 `json:"timestamp"`
			InputLength  *int64   `json:"input_length"`
			OutputLength *int64   `json:"output_length"`
			HashIDs      []int64  `json:"hash_ids"`
		}
		refErr := json.Unmarshal(line, &ref)
		refOK := refErr == nil && ref.Timestamp != nil && ref.InputLength != nil && ref.OutputLength != nil
		ms, in, out, ids, _, err := parse(line)
		switch {
		case refOK != (err == nil):
			t.Fatalf("%q: encoding/json %v (all fields: %v), the parser %v", line, refErr, refOK, err)
		case !refOK:
			continue
		case !(ms == *ref.Timestamp || math.IsNaN(ms)) || in != *ref.InputLength || out != *ref.OutputLength || !slices.Equal(ids, ref.HashIDs):
			t.Fatalf("%q: the parser read %g, %d, %d, %v; encoding/json %g, %d, %d, %v", line, ms, in, out, ids, *ref.Timestamp, *ref.InputLength, *ref.OutputLength, ref.HashIDs)
		}
	}
}
