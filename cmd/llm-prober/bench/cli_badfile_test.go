package bench

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// A trace, dataset or workload file that cannot be read or does not parse
// is bad input: exit 2 like a bad flag (it was 1, a run error), with one
// error line that names the file, and its line where the reader knows it.
func TestBenchCLIBadFileExits2(t *testing.T) {
	url := mocktarget.Serve(t, mockvllm.DefaultOptions(), nil)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	future := write("future.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5}`+"\n"+
		`{"timestamp": 1e300, "input_length": 10, "output_length": 5}`+"\n")
	csv := write("bad.csv", "Timestamp,Model,Request tokens,Response tokens\n0,m,10,5\nsoon,m,10,5\n")
	jsonl := write("bad.jsonl", `{"prompt": "hello there", "output_tokens": 4}`+"\n"+`{"prompt": `+"\n")
	share := write("share.json", `{"not": "an array"}`)
	wf := write("w.json", "{\n  \"version\": 1,\n  \"request_rate\": nope\n}\n")
	missing := filepath.Join(dir, "missing.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset-name", "trace", "--dataset-path", future}, future + ":2: timestamp 1e+300"},
		{[]string{"--dataset-name", "trace", "--dataset-path", csv}, csv + ":3: the Timestamp \"soon\" is not a number"},
		{[]string{"--dataset-name", "trace", "--dataset-path", fifo}, fifo + " is not a regular file"},
		{[]string{"--dataset-name", "trace", "--dataset-path", missing}, "cannot read " + missing},
		{[]string{"--dataset-name", "jsonl", "--dataset-path", jsonl}, jsonl + ":2: "},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", share}, share + ": not a ShareGPT JSON array"},
		{[]string{"--dataset-name", "conversations", "--api", "chat", "--dataset-path", share}, share + ": not a ShareGPT JSON array"},
		{[]string{"--workload-file", wf}, "--workload-file: " + wf + ":3: not a workload file"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", url, "--num-prompts", "2", "--progress", "off"}, c.args...)...)
		line := log[strings.LastIndex(strings.TrimSuffix(log, "\n"), "\n")+1:]
		if code != ExitBadInput || !strings.HasPrefix(line, "error: ") || !strings.Contains(line, c.want) {
			t.Errorf("%q: exit %d, want %d with %q on the last line:\n%s", c.args, code, ExitBadInput, c.want, log)
		}
	}
}

// A --config.file that does not load, or a target it does not hold, is bad
// input like a bad trace file: exit 2 naming the file (it was exit 1). A
// bad OTEL_* variable with a config file already exited 2 (bench's OTLP
// section reads the environment first); kept as a guard.
func TestBenchCLIBadConfigFileExits2(t *testing.T) {
	url := mocktarget.Serve(t, mockvllm.DefaultOptions(), nil)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yml")
	if err := os.WriteFile(good, []byte("modules: {m: {api: chat, messages: [{role: user, content: hi}]}}\n"+
		"targets: [{name: vllm, url: '"+url+"', model: mock-model, modules: [m]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("targets:\n  - name: vllm\n    url: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  string // OTEL_EXPORTER_OTLP_PROTOCOL
		want string
	}{
		{"unparsable", []string{"--config.file", bad, "--target", "vllm"}, "", bad},
		{"missing", []string{"--config.file", filepath.Join(dir, "none.yml"), "--target", "vllm"}, "", "none.yml"},
		{"no such target", []string{"--config.file", good, "--target", "tgi"}, "", `no target "tgi" in ` + good},
		{"bad OTEL variable", []string{"--config.file", good, "--target", "vllm"}, "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
				t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", c.env)
			}
			code, _, log := benchCLI(t, append([]string{"--num-prompts", "2", "--progress", "off"}, c.args...)...)
			if code != ExitBadInput || !strings.Contains(log, c.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, ExitBadInput, c.want, log)
			}
		})
	}
}
