package cfgsweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The result file reads back as written; a missing one is an empty start.
func TestResultRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if r, err := ReadResult(path); err != nil || len(r.Rows) != 0 {
		t.Fatalf("missing file: %v %+v", err, r)
	}
	c := Configuration{Name: "big", Params: []Param{{"seqs", "256"}}}
	in := &Result{Mode: "start", Command: "serve {seqs}", Rows: []Row{{Name: c.Name, Params: c.Params, Key: c.Key(), Status: StatusOK, KneeRate: 3.5,
		Curve: []CurvePoint{{Kind: "rate", Rate: 4, RequestRate: 3.9}}}}}
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadResult(path)
	if err != nil || len(out.Rows) != 1 || out.Rows[0].KneeRate != 3.5 || out.Rows[0].Curve[0].RequestRate != 3.9 || out.Command != "serve {seqs}" {
		t.Errorf("%v %+v", err, out)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// A hostile or foreign result file is refused with the row and the field.
func TestResultHostile(t *testing.T) {
	dir := t.TempDir()
	row := func(s string) string {
		return `{"llm_prober_config_sweep": 1, "mode": "start", "command": "x", "rows": [` + s + `]}`
	}
	for text, want := range map[string]string{
		`{"points": []}`: "not a configuration sweep's result",
		`{"llm_prober_config_sweep": 2, "rows": []}`:                                           "llm_prober_config_sweep is 2",
		row(`{"params": [{"name": "a", "value": "1"}], "key": "a=2", "status": "ok"}`):         "row 1: key \"a=2\" is not its configuration's",
		row(`{"params": [], "key": "", "status": "great"}`):                                    "row 1: unknown status \"great\"",
		row(`{"params": [], "key": "", "status": "ok", "log_file": "../../etc/passwd"}`):       "row 1: log_file is not a file name",
		row(`{"params": [], "key": "", "status": "ok", "knee_achieved_request_rate": -1}`):     "row 1: a number is negative",
		row(`{"params": [], "key": "", "status": "ok", "kv_blocks": -5}`):                      "row 1: a count is negative",
		row(`{"params": [], "key": "", "status": "ok", "curve": [{"kind": "x", "rate": -1}]}`): "row 1: a curve point's number",
		row(`{"params": [], "key": "", "status": "ok", "knee_achieved_request_rate": 1e999}`):  "not a configuration sweep's result",
		row(`{"params": [], "key": "", "status": "ok"}`) + `garbage`:                           "",
		`[` + strings.Repeat(`[`, 100000):                                                      "not a configuration sweep's result",
	} {
		path := filepath.Join(dir, "f.json")
		os.WriteFile(path, []byte(text), 0o600)
		_, err := ReadResult(path)
		if want == "" {
			continue // trailing bytes after the object are ignored
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--resume: ") {
			t.Errorf("%.60s: %v, want %q", text, err, want)
		}
	}
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(maxResultBytes + 1)
	f.Close()
	if _, err := ReadResult(big); err == nil || !strings.Contains(err.Error(), "over the size cap") {
		t.Errorf("over the cap: %v", err)
	}
}
