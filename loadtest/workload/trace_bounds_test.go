package workload

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// Far-future timestamps and absurd scales are refused with the line:
// the offset used to overflow into "3 requests over −9223372036.9 s"
// and a wait for ever.
func TestTraceTimeBounds(t *testing.T) {
	ok := `{"timestamp": 0, "input_length": 4, "output_length": 2}` + "\n"
	for _, c := range []struct {
		name, body string
		scale      float64
		want       string
	}{
		{"future.jsonl", ok + `{"timestamp": 1e300, "input_length": 4, "output_length": 2}`, 1, "future.jsonl:2: timestamp 1e+300 is"},
		{"year.jsonl", ok + `{"timestamp": 4e13, "input_length": 4, "output_length": 2}`, 1, "future.jsonl:2"},
		{"scaled.jsonl", ok + `{"timestamp": 1000, "input_length": 4, "output_length": 2}`, 1e300, "--trace-time-scale 1e+300 must be in"},
		{"tiny.jsonl", ok, 5e-324, "--trace-time-scale 5e-324 must be in"},
		{"burst.csv", "Timestamp,Model,Request tokens,Response tokens\n0,a,2,3\n9e18,a,2,3\n", 1, "burst.csv:3: timestamp 9e+21 is"},
	} {
		c.want = strings.Replace(c.want, "future.jsonl", c.name, 1)
		_, err := LoadTrace(testutil.TempFile(t, c.name, c.body), TraceOptions{Scale: c.scale})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s × %g: %v, want %q", c.name, c.scale, err, c.want)
		}
	}
	// A year of trace at 1/1000 speed is a 9-hour replay: fine.
	tr, err := LoadTrace(testutil.TempFile(t, "slow.jsonl", ok+`{"timestamp": 3.1536e10, "input_length": 4, "output_length": 2}`), TraceOptions{Scale: 1e-3})
	if err != nil || tr.At(1) != 31536*time.Second {
		t.Errorf("a year at 1/1000: %v, %v", tr, err)
	}
}

// A BurstGPT CSV saved with a byte-order mark is read (it was refused:
// the header did not start with "Timestamp").
func TestTraceCSVWithBOM(t *testing.T) {
	for _, name := range []string{"bom.csv", "bom.txt"} {
		p := testutil.TempFile(t, name, "\ufeffTimestamp,Model,Request tokens,Response tokens\r\n1,a,2,3\r\n2,a,4,5\r\n")
		tr, err := LoadTrace(p, TraceOptions{})
		if err != nil || tr.Len() != 2 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Element caps: requests and hash ids, with the line; a FIFO is refused
// without blocking.
func TestTraceElementCaps(t *testing.T) {
	defer func(r, h int) { maxTraceRequests, maxTraceHashIDs = r, h }(maxTraceRequests, maxTraceHashIDs)
	maxTraceRequests, maxTraceHashIDs = 3, 5
	line := `{"timestamp": 0, "input_length": 4, "output_length": 2, "hash_ids": [1, 2]}` + "\n"
	if _, err := LoadTrace(testutil.TempFile(t, "many.jsonl", strings.Repeat(line, 4)), TraceOptions{}); err == nil ||
		!strings.Contains(err.Error(), "many.jsonl:3: more than 5 hash ids") {
		t.Errorf("6 hash ids, cap 5: %v", err)
	}
	maxTraceHashIDs = 100
	if _, err := LoadTrace(testutil.TempFile(t, "many.jsonl", strings.Repeat(line, 4)), TraceOptions{}); err == nil ||
		!strings.Contains(err.Error(), "many.jsonl:4: more than 3 requests") {
		t.Errorf("4 requests, cap 3: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrace(fifo, TraceOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
}
