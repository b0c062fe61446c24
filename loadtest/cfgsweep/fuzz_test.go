package cfgsweep

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzServerConfig feeds arbitrary bytes as a --server-config file: never
// a panic; a refusal is one line naming the flag and the file; an
// accepted file holds 1…MaxConfigurations configurations, each within the
// caps on parameters, names and values, no name or parameter twice.
func FuzzServerConfig(f *testing.F) {
	f.Add([]byte("# sizes\nsmall: max_num_seqs=64 gpu_memory_utilization=0.85\nbig: max_num_seqs=256 'extra=a b'\n\n"))
	f.Add([]byte("a=1\r\nb=\"x y\" c='\\''\n"))
	f.Add([]byte("n: a=1\nn: a=2\n"))
	f.Add([]byte("x: port=1 a=\"unterminated\n"))
	f.Add([]byte(strings.Repeat("a=1 ", 40) + "\n" + strings.Repeat("é", 300) + "=1\n"))
	f.Add([]byte("a=\xff\xfe\n:\n=\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "configs.txt")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cs, err := ReadFile(p)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "--server-config") || !strings.Contains(msg, p) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: not one line naming the flag and the file", msg)
			}
			return
		}
		if len(cs) == 0 || len(cs) > MaxConfigurations {
			t.Fatalf("%d configurations from %q", len(cs), b)
		}
		names := map[string]bool{}
		for _, c := range cs {
			if c.Name != "" {
				if names[c.Name] || len(c.Name) > maxNameBytes || !configName.MatchString(c.Name) {
					t.Errorf("configuration name %q accepted from %q", c.Name, b)
				}
				names[c.Name] = true
			}
			if len(c.Params) > maxParams {
				t.Errorf("%d parameters accepted", len(c.Params))
			}
			seen := map[string]bool{}
			for _, q := range c.Params {
				if seen[q.Name] || checkName(q.Name) != nil || q.Value == "" || len(q.Value) > maxValueBytes || !utf8.ValidString(q.Value) {
					t.Errorf("parameter %q=%q accepted from %q", q.Name, q.Value, b)
				}
				seen[q.Name] = true
			}
		}
	})
}

// FuzzResumeResult feeds arbitrary bytes as the configuration sweep's
// result file that --resume reads: never a panic; a refusal is one line
// naming --resume and the file; an accepted result has at most
// MaxConfigurations rows, each with its configuration's key, a known
// status and finite, non-negative numbers.
func FuzzResumeResult(f *testing.F) {
	f.Add([]byte(`{"llm_prober_config_sweep": 1, "rows": []}`))
	f.Add([]byte(`{"llm_prober_config_sweep": 1, "rows": [{"key": "a=1", "params": [{"name": "a", "value": "1"}], "status": "ok", "knee_achieved_request_rate": 3.5, "knee_request_rate_ci95_high": 4,
		"curve": [{"rate": 1, "request_rate": 0.9}]}]}`))
	f.Add([]byte(`{"llm_prober_config_sweep": 1, "rows": [{"key": "x", "status": "ok", "tail_ttft_ms": -1}]}`))
	f.Add([]byte(`{"llm_prober_config_sweep": 2}`))
	f.Add([]byte(`{"llm_prober_config_sweep": 1, "rows": [{"status": "failed", "kv_blocks": -3}], "extra": 1}`))
	f.Add([]byte(`{"llm_prober_config_sweep": 1e400, "rows": [` + strings.Repeat("[", 70) + `]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "result.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := ReadResult(p)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "--resume: ") || !strings.Contains(msg, p) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: not one line naming the flag and the file", msg)
			}
			return
		}
		if len(r.Rows) > MaxConfigurations {
			t.Fatalf("%d rows accepted", len(r.Rows))
		}
		for _, row := range r.Rows {
			if row.Key != (Configuration{Name: row.Name, Params: row.Params}).Key() {
				t.Errorf("row key %q accepted", row.Key)
			}
			for _, v := range []float64{row.KneeRate, row.KneeOffered, row.KneeLow, row.KneeHigh, row.LowerBound, row.OutputThroughput, row.TailTTFT, row.TailTPOT, row.Tail} {
				if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
					t.Errorf("number %g accepted", v)
				}
			}
		}
	})
}
