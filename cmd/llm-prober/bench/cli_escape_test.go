package bench

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// hostile is an ESC sequence that clears the screen and retitles the
// terminal, and a C1 CSI: printed raw, they act on the user's terminal.
const hostile = "\x1b[2J\x1b]0;pwned\x07\u009b31m"

// A server whose model name, version and error bodies carry terminal
// escapes, and a dataset file whose name does: none reaches bench's text
// output, its error line or its HTML page raw; each shows as "\x1b"
// (issue 32, text). The text report names errors by kind; the page quotes
// the server's body.
func TestBenchCLIEscapesServerAndFileText(t *testing.T) {
	o := mockvllm.DefaultOptions()
	o.Model, o.Version = "m"+hostile, "0.1"+hostile
	o.TTFT, o.ITL = mockvllm.Dist{Mean: time.Millisecond}, mockvllm.Dist{Mean: time.Millisecond}
	s := mockvllm.New(o)
	var n atomic.Int64
	url := mocktarget.Serve(t, o, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			http.Error(w, "overloaded"+hostile, http.StatusServiceUnavailable)
			return
		}
		s.ServeHTTP(w, r)
	})
	t.Cleanup(s.Close)
	dir := t.TempDir()
	data := filepath.Join(dir, "prompts"+hostile+".jsonl")
	testutil.WriteFile(t, data, `{"prompt": "hello there", "output_tokens": 4}`+"\n")
	page := filepath.Join(dir, "r.html")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--num-prompts", "8", "--progress", "lines",
		"--dataset-name", "jsonl", "--dataset-path", data, "--report", page, "--metrics-interval", "50ms")
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("exit %d, no page: %v\n%s%s", code, err, stdout, log)
	}
	model := `m\x1b[2J\x1b]0;pwned\x07\u009b31m`
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"output", stdout + log, []string{model, `0.1\x1b[2J`, `prompts\x1b[2J`}},
		{"page", string(html), []string{model, `overloaded\x1b[2J`}},
	} {
		if i := strings.IndexAny(c.text, "\x1b\x07\u009b"); i >= 0 {
			t.Errorf("%s has a raw control character: %q", c.name, c.text[max(0, i-60):min(len(c.text), i+60)])
		}
		for _, want := range c.want {
			if !strings.Contains(c.text, want) {
				t.Errorf("%s lacks the escaped %q:\n%s", c.name, want, c.text)
			}
		}
	}
	// An error that quotes the server: the error line is escaped too.
	var b bytes.Buffer
	printError(&b, "llm-prober bench:", &os.PathError{Op: "open", Path: "x" + hostile, Err: os.ErrNotExist})
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), `x\x1b[2J`) {
		t.Errorf("error line %q", b.String())
	}
}

// bench compare on a result file whose model carries terminal escapes:
// the note that names it, and its page, show it escaped.
func TestBenchCompareEscapesFileText(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if code, stdout, log := benchCLI(t, "--url", slowMock(t, time.Millisecond), "--concurrency", "2", "--num-prompts", "10", "--input-tokens", "8",
		"--output-tokens", "4", "--progress", "off", "--no-server-metrics", "--output-json", base); code != 0 {
		t.Fatalf("bench: exit %d\n%s%s", code, stdout, log)
	}
	raw, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	hostileJSON := `m\u001b[2J\u001b]0;pwned\u0007`
	renamed := strings.Replace(string(raw), `"model_id": "mock-model"`, `"model_id": "`+hostileJSON+`"`, 1)
	if renamed == string(raw) {
		t.Fatalf("no model_id in %s", raw[:min(len(raw), 400)])
	}
	nw := filepath.Join(dir, "new"+hostile+".json")
	testutil.WriteFile(t, nw, renamed)
	page := filepath.Join(dir, "cmp.html")
	code, stdout, log := compareCLI(t, "--report", page, base, nw)
	html, _ := os.ReadFile(page)
	for name, text := range map[string]string{"output": stdout + log, "page": string(html)} {
		if i := strings.IndexAny(text, "\x1b\x07"); i >= 0 {
			t.Errorf("exit %d: %s has a raw control character: %q", code, name, text[max(0, i-60):min(len(text), i+60)])
		}
		if !strings.Contains(text, `m\x1b[2J`) {
			t.Errorf("exit %d: %s lacks the escaped model:\n%s", code, name, text)
		}
	}
}
