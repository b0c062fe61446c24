package resultfile

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/summary"
	"github.com/llm-prober/llm-prober/prober"
)

// A record survives the file: JSONOut.Add then ReadRecords give back
// the engine's nanoseconds exactly (seconds as shortest floats round
// back), its gaps, its worst gap (max_itl, µs) and its error.
func TestRecordsRoundTrip(t *testing.T) {
	jo, err := NewJSONOut()
	if err != nil {
		t.Fatal(err)
	}
	defer jo.Close()
	want := []loadtest.Record{
		{Index: 7, Planned: 123_456_789_012, Start: 123_457_000_001, End: 124_000_000_003, TTFT: 20_000_017, TPOT: 5_000_001,
			E2EL: 40_000_011, PlannedPrompt: 100, PromptTokens: 101, CachedTokens: 16, PlannedOutput: 5, OutputTokens: 5, ITLCount: 2, Turn: 2, SlotWaited: true,
			MaxGapUs: 5001},
		// A failure while decoding: its worst gap is the one left open,
		// beyond every closed gap (here none).
		{Index: 8, Planned: 3, Start: 4, End: 9, Reason: prober.ReasonConnect, Warmup: true, PlannedOutput: 4, MaxGapUs: 2_000_000},
	}
	gaps := [][]time.Duration{{5_000_003, 4_999_999}, nil}
	jo.Add(&want[0], &prober.Result{ITL: gaps[0]})
	jo.Add(&want[1], &prober.Result{Reason: prober.ReasonConnect, Err: io.ErrUnexpectedEOF})
	p := filepath.Join(t.TempDir(), "r.json")
	if err := jo.Write(p, []summary.KV{{Key: "completed", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var got []loadtest.Record
	var msgs []string
	rf, err := ReadRecords(t.Context(), p, func(rec *loadtest.Record, itl []time.Duration, msg string) error {
		got = append(got, *rec)
		msgs = append(msgs, msg)
		if len(got) == 1 && (len(itl) != 2 || itl[0] != gaps[0][0] || itl[1] != gaps[0][1]) {
			t.Errorf("gaps %v, want %v", itl, gaps[0])
		}
		return nil
	})
	if err != nil || rf.Requests != 2 {
		t.Fatalf("%v, %+v", err, rf)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if msgs[1] != io.ErrUnexpectedEOF.Error() {
		t.Errorf("error %q", msgs[1])
	}
}

// Hostile shard files fail with an error naming the entry and field,
// within the caps, never blocking.
func TestReadRecordsHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	noop := func(*loadtest.Record, []time.Duration, string) error { return nil }
	if _, err := ReadRecords(t.Context(), fifo, noop); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	ok := `{"index": 1, "planned_s": 0.1, "start_s": 0.1, "ttft": 0.01, "latency": 0.02, "success": true}`
	big := `"` + strings.Repeat("x", MaxHeadKey) + `"`
	for _, c := range []struct{ body, want string }{
		{`[1]`, "want a JSON object"},
		{`{"a": 1}`, `no "requests"`},
		{`{"points": []}`, "sweep"},
		{`{"requests": [{"planned_s": 1e300}]}`, "entry 0: planned_s: 1e+300 is out of range"},
		{`{"requests": [` + ok + `, {"ttft": -1e9}]}`, "entry 1: ttft"},
		{`{"requests": [{"itls": [0.1, -1], "success": true}]}`, "entry 0: itls: -1 s is not a gap"},
		{`{"requests": [{"output_tokens": -3, "success": true}]}`, "negative"},
		{`{"requests": [` + ok + `, {"max_itl": -0.5, "success": true}]}`, "entry 1: max_itl: -0.5 s is out of range (0 to 2147 s)"},
		{`{"requests": [{"max_itl": 1e9, "success": true}]}`, "entry 0: max_itl: 1e+09 s is out of range"},
		{`{"requests": [{"max_itl": "long", "success": true}]}`, "entry 0"},
		{`{"requests": [{"index": -1}]}`, "negative"},
		{`{"requests": [{"success": false}]}`, `without a "reason"`},
		{`{"requests": [{"ttft": "fast"}]}`, "entry 0"},
		{`{"requests": [` + ok + `, {"itls": [0.1, `, "entry 1"},
		{`{"k": ` + big + `, "requests": []}`, "aggregate keys pass"},
		{`{"requests": [` + strings.Repeat(ok+",", 3) + ok + `]}`, "more than 3 requests"},
	} {
		p := filepath.Join(dir, "f.json")
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func(n int) { maxRequests = n }(maxRequests)
			maxRequests = 3
			if _, err := ReadRecords(t.Context(), p, noop); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "f.json") {
				t.Errorf("%.60s: %v, want %q", c.body, err, c.want)
			}
		}()
	}
	// The deadline covers decoding: an expired one stops the read.
	p := filepath.Join(dir, "many.json")
	if err := os.WriteFile(p, []byte(`{"requests": [`+strings.Repeat(ok+",", 9999)+ok+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ReadRecords(ctx, p, noop); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzReadRecords: any bytes give records or an error, never a panic,
// and every record's numbers are within the reader's bounds.
func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"requests": [{"index": 1, "planned_s": 0.1, "start_s": 0.1, "end_s": 0.2, "ttft": 0.01, "itls": [0.001], "success": true}]}`))
	f.Add([]byte(`{"llm_prober_shard": {"index": 0}, "ttfts": [1, 2], "requests": [{"success": false, "reason": "http"}]}`))
	f.Add([]byte(`{"requests": [{"planned_s": 1e300}]}`))
	f.Add([]byte(`{"requests": [{"itls": [0.5], "max_itl": 2.5, "success": true}, {"itls": [3000], "success": true}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rf, err := readRecords(context.Background(), bytes.NewReader(b), func(rec *loadtest.Record, itl []time.Duration, _ string) error {
			lim := int64(maxSeconds) * 1e9
			for _, v := range []int64{rec.Planned, rec.Start, rec.End, rec.TTFT, rec.TPOT, rec.E2EL} {
				if v < -lim || v > lim {
					t.Fatalf("time %d out of bounds", v)
				}
			}
			if !rec.Success() && rec.Reason == "" {
				t.Fatal("a failure without a reason")
			}
			for _, g := range itl {
				if g < 0 || int64(g) > lim {
					t.Fatalf("gap %v", g)
				}
			}
			if rec.MaxGapUs < 0 {
				t.Fatalf("worst gap %d µs", rec.MaxGapUs)
			}
			return nil
		})
		if err == nil && (rf.Requests < 0 || rf.Requests > maxRequests) {
			t.Fatalf("%d requests", rf.Requests)
		}
	})
}

// A file written before max_itl existed: each request's worst gap is its
// longest closed gap (rounded up to the µs, as the engine does).
func TestReadRecordsWithoutMaxITL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.json")
	body := `{"requests": [{"itls": [0.25, 0.5000004], "success": true}, {"itls": [0.1], "max_itl": 0.75, "success": true}]}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []int32
	if _, err := ReadRecords(t.Context(), p, func(rec *loadtest.Record, _ []time.Duration, _ string) error {
		got = append(got, rec.MaxGapUs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 500_001 || got[1] != 750_000 {
		t.Errorf("worst gaps %v µs, want [500001 750000]", got)
	}
}
