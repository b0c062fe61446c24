package resultfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bench compare's files: a FIFO is refused without blocking, and a file
// of more requests than the cap with a clear error (300 MB files cost
// over 3 GiB before).
func TestReadRunFileBounds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	defer func(n int) { maxRequests = n }(maxRequests)
	maxRequests = 2
	req := `{"ttft": 0.1, "tpot": 0.01, "latency": 1, "success": true}`
	p := filepath.Join(dir, "many.json")
	if err := os.WriteFile(p, []byte(`{"requests": [`+strings.Repeat(req+",", 2)+req+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunFile(p); err == nil || !strings.Contains(err.Error(), "many.json: requests: more than 2 requests") {
		t.Errorf("3 requests, cap 2: %v", err)
	}
}

// bench compare reads each request's worst gap checked, like merge: a
// negative or unbounded max_itl is refused naming the entry.
func TestReadRunFileMaxITL(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{`{"requests": [{"success": true}, {"itls": [0.01], "max_itl": -1, "success": true}]}`, "requests: entry 1: max_itl: -1 s is out of range"},
		{`{"requests": [{"itls": [0.01], "max_itl": 1e12, "success": true}]}`, "entry 0: max_itl: 1e+12 s is out of range"},
	} {
		p := filepath.Join(dir, "run.json")
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRunFile(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
	p := filepath.Join(dir, "ok.json")
	body := `{"llm_prober_goodput_slo": "max_itl:500", "requests": [{"itls": [0.01, 0.02], "max_itl": 0.9, "success": true}, ` +
		`{"itls": [0.01, 0.02], "max_itl": 0.02, "success": true}, {"itls": [0.3], "success": true}]}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rf, err := ReadRunFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(rf.MaxITL) != 3 || rf.MaxITL[0] != 900 || rf.MaxITL[1] != 20 || rf.MaxITL[2] != 300 || rf.Good != 2 {
		t.Errorf("worst gaps %v ms, %d good; want [900 20 300] and 2 (the first missed max_itl:500)", rf.MaxITL, rf.Good)
	}
}

// compare recounts SLO attainment as the run did: a per-token TTFT
// objective reads each request's prompt length (the server's count,
// else the planned one).
func TestReadRunFilePerTokenTTFT(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run.json")
	body := `{"llm_prober_goodput_slo": "ttft:100+1/tok", "requests": [` +
		`{"ttft": 0.25, "prompt_len": 10, "prompt_tokens": 200, "success": true}, ` + // limit 300 ms: good
		`{"ttft": 0.25, "prompt_len": 180, "success": true}, ` + // 280 ms: good
		`{"ttft": 0.25, "prompt_len": 10, "prompt_tokens": 10, "success": true}]}` // 110 ms: missed
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rf, err := ReadRunFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if rf.SLO.TTFTPerToken == 0 || rf.Good != 2 || rf.Measured != 3 {
		t.Errorf("SLO %v: %d good of %d, want 2 of 3", rf.SLO, rf.Good, rf.Measured)
	}
}
