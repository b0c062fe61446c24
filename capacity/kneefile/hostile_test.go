package kneefile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// heapGrowth is the bytes fn allocates, all told.
func heapGrowth(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A 60 MiB file of nested brackets (2 GiB of RSS before, left after the
// reload was refused) is refused at its 65th bracket, naming the file and
// line, having allocated next to nothing; so is one where the points
// should be.
func TestKneeFileNestedBrackets(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nested.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("{\n\"knee_request_rate\": 4,\n\"x\": ")
	chunk := []byte(strings.Repeat("[", 1<<20))
	for range 60 {
		w.Write(chunk)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	var got error
	alloc := heapGrowth(func() { _, got = Read(p) })
	if got == nil || got.Error() != p+":3: not JSON: nested more than 64 deep" {
		t.Errorf("got %v", got)
	}
	if err := os.WriteFile(p, []byte("{\"points\": "+strings.Repeat("[", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || err.Error() != p+":1: points[0]: want an object" {
		t.Errorf("points: %v", err)
	}
	if alloc > 4<<20 {
		t.Errorf("refusing the 60 MiB file allocated %d MiB", alloc>>20)
	}
}

// A large sweep with the knee at its end is read in bounded memory: the
// per-request arrays are skipped, never held.
func TestKneeFileMemoryBounded(t *testing.T) {
	p := testutil.WriteSweep(t, t.TempDir(), false, 10, 200_000) // ~20 MB
	var k *Knee
	var err error
	alloc := heapGrowth(func() { k, err = Read(p) })
	if err != nil || k.Rate != 8.25 {
		t.Fatalf("%+v, %v", k, err)
	}
	if st, _ := os.Stat(p); alloc > 4<<20 || st.Size() < 16<<20 {
		t.Errorf("reading %d MiB allocated %d MiB", st.Size()>>20, alloc>>20)
	}
}

// Numbers are checked where they enter: a knee of 5e-324 req/s made the
// headroom −Inf; 1e999 is +Inf; negative lengths are no lengths.
func TestKneeFileNumbers(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`{"knee_request_rate": 4, "knee_achieved_request_rate": 5e-324}`:                                    ":1: knee_achieved_request_rate must be a rate between 1e-06 and 1e+09 req/s, got 5e-324",
		`{"knee_request_rate": 4, "knee_achieved_request_rate": 1e-300}`:                                    "got 1e-300",
		"{\n\"knee_achieved_request_rate\": 1e999}":                                                         ":2: knee_achieved_request_rate: +Inf is out of range",
		`{"knee_achieved_request_rate": 2e9}`:                                                               "got 2e+09",
		`{"knee_request_rate": -0, "knee_achieved_request_rate": 3}`:                                        "knee_request_rate must be a rate between",
		`{"knee_goodput_percent": 1e308, "knee_achieved_request_rate": 3}`:                                  "knee_goodput_percent must be in (0, 100], got 1e+308",
		`{"knee_achieved_request_rate": 3, "points": [{"completed": -5}]}`:                                  "points[0].completed must not be negative, got -5",
		`{"knee_achieved_request_rate": 3, "points": [{"burstiness": "x"}]}`:                                "points[0].burstiness: want a number",
		`{"knee_achieved_request_rate": 3, "points": [{"request_rate": 1` + strings.Repeat("0", 80) + `}]}`: "not JSON: a number of 81 characters",
		`{"knee_achieved_request_rate": 3, "points": [1]}`:                                                  "points[0]: want an object",
		`{"knee_achieved_request_rate": 3} x`:                                                               `not JSON: 'x' after the end of the JSON document`,
		`{"knee_achieved_request_rate": 3, "a": "` + "\x1b" + `[2J"}`:                                       `not JSON: control character '\x1b' in a string`,
		`{"knee_achieved_request_rate": 3, "a": 01}`:                                                        `not JSON: want ',' or '}'`,
	} {
		p := filepath.Join(dir, "k.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if k, err := Read(p); err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.80s: knee %+v, err %v; want one line with %q", body, k, err, want)
		}
	}
}

// A sweep that never saw a rate fail wrote a lower bound: refused, never
// read as the knee, whatever the keys beside it say.
func TestKneeFileLowerBoundRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k.json")
	body := `{"knee_goodput_percent": 99, "llm_prober_knee_status": "lower_bound", "llm_prober_knee_lower_bound_request_rate": 20,
		"knee_request_rate": 20, "knee_achieved_request_rate": 20.5, "points": []}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(string) (*Knee, error){Read} {
		if k, err := read(p); err == nil || err.Error() != p+": knee above 20 req/s is a lower bound, not a knee: no rate of the sweep failed; rerun bench --sweep with higher --rates" {
			t.Errorf("knee %+v, %v", k, err)
		}
	}
	if err := os.WriteFile(p, []byte(`{"llm_prober_knee_status": "maybe", "knee_achieved_request_rate": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), `unknown status "maybe"`) {
		t.Errorf("unknown status: %v", err)
	}
}

// A FIFO is refused without waiting for a writer, also when it replaces
// the file between a stat and an open (a reload hung on it forever, and
// every later one behind it). The watchdog opens the FIFO for writing,
// which frees a reader stuck in open, so that a regression fails the
// test instead of hanging the suite.
func TestKneeFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := Read(fifo); err == nil || err.Error() != fifo+" is not a regular file (p---------)" {
		t.Errorf("FIFO: %v", err)
	}
	// The race: a path that flips between a file and a FIFO.
	p := filepath.Join(dir, "k.json")
	file := filepath.Join(dir, "file.json")
	if err := os.WriteFile(file, []byte(`{"knee_request_rate": 4, "knee_achieved_request_rate": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.FIFOSwap(t, p, file, fifo, 2000, func(p string) error {
		_, err := Read(p)
		return err
	})
}
