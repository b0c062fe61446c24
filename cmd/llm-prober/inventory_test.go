package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/config/otlpcfg"
)

// inventory is the "named by" column of the table in the "Input
// inventory" section of docs/reliability.md, one cell a row: a name
// counts only in the table, never in the prose around it.
func inventory(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	cells, err := namedBy(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(cells, "\n")
}

// namedBy parses the inventory table of doc and returns its "named by"
// cells.
func namedBy(doc string) ([]string, error) {
	_, s, ok := strings.Cut(doc, "\n## Input inventory\n")
	if !ok {
		return nil, errors.New("docs/reliability.md has no Input inventory section")
	}
	s, _, _ = strings.Cut(s, "\n## ")
	var cells []string
	col := -1
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") {
			if col >= 0 {
				break // the table ended
			}
			continue
		}
		row := splitRow(line)
		switch {
		case col < 0:
			col = slices.Index(row, "named by")
			if col < 0 {
				return nil, fmt.Errorf("the inventory table's header %q has no \"named by\" column", line)
			}
		case strings.Trim(line, "|-: ") == "": // the separator
		case len(row) <= col:
			return nil, fmt.Errorf("inventory row %q has no \"named by\" cell", line)
		default:
			cells = append(cells, row[col])
		}
	}
	if len(cells) == 0 {
		return nil, errors.New("the Input inventory section has no table rows")
	}
	return cells, nil
}

// splitRow splits a Markdown table row into its trimmed cells; a pipe
// escaped (\|) or inside backticks is text.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
			continue
		case c == '`':
			code = !code
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// takesInput reports whether a flag's name says it takes a path or a URL.
func takesInput(name string) bool {
	for _, suf := range []string{"file", "path", "url"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// missingInputs lists the path- and URL-taking flags, the positional
// arguments and the config fields of app that table does not name (in
// backticks: `--flag`, `arg`, `yaml_name`).
func missingInputs(app *kingpin.Application, table string) []string {
	var missing []string
	has := func(name string) bool { return strings.Contains(table, "`"+name+"`") }
	var walk func(cmds []*kingpin.CmdModel)
	walk = func(cmds []*kingpin.CmdModel) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				if takesInput(f.Name) && !has("--"+f.Name) {
					missing = append(missing, c.FullCommand+" --"+f.Name)
				}
			}
			for _, a := range c.Args {
				if !has(a.Name) {
					missing = append(missing, c.FullCommand+" "+a.Name)
				}
			}
			walk(c.Commands)
		}
	}
	walk(app.Model().Commands)
	for _, name := range configInputs() {
		if !has(name) {
			missing = append(missing, "config "+name)
		}
	}
	slices.Sort(missing)
	return slices.Compact(missing)
}

// configInputs are the YAML names of the config's fields (through every
// nested type, prometheus/common's included) that take a path or a URL.
func configInputs() []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(tp reflect.Type)
	walk = func(tp reflect.Type) {
		for tp.Kind() == reflect.Pointer || tp.Kind() == reflect.Slice || tp.Kind() == reflect.Map {
			tp = tp.Elem()
		}
		if tp.Kind() != reflect.Struct || seen[tp] {
			return
		}
		seen[tp] = true
		for i := range tp.NumField() {
			f := tp.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			for _, suf := range []string{"_file", "_files", "_path", "url", "endpoint"} {
				if name != "" && strings.HasSuffix(name, suf) {
					out = append(out, name)
				}
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(config.Config{}))
	return out
}

// Every flag and config field that takes a path or a URL, and every
// positional argument, has a row in the input inventory; a new one
// without a row fails here.
func TestInputInventory(t *testing.T) {
	table := inventory(t)
	if got := missingInputs(newCLI().app, table); len(got) > 0 {
		t.Errorf("inputs without a row in docs/reliability.md's Input inventory (add one: caps and the test that proves them): %v", got)
	}
	for _, name := range envInputs(t) {
		if !strings.Contains(table, "`"+name+"`") {
			t.Errorf("environment variable %s is read but has no row in docs/reliability.md's Input inventory", name)
		}
	}
	if n := len(configInputs()); n < 10 {
		t.Errorf("only %d config inputs found: the walk no longer reaches the config's fields", n)
	}
	// The check itself: a new path flag, argument or URL flag without a
	// row is reported.
	c := newCLI()
	c.app.GetCommand("plan").Flag("baseline.file", "").String()
	c.app.GetCommand("bench").GetCommand("compare").Flag("history-url", "").String()
	c.app.Command("replay", "").Arg("recording", "").String()
	got := missingInputs(c.app, table)
	want := []string{"bench compare --history-url", "plan --baseline.file", "replay recording"}
	if !slices.Equal(got, want) {
		t.Errorf("with three new inputs: missing %v, want %v", got, want)
	}
	// A name in the prose around the table is no row.
	doc := "# R\n\n## Input inventory\n\nThe flag `--prose.file` is read too.\n\n" +
		"| surface | named by | caps | proved by |\n|---|---|---|---|\n" +
		"| a file | `--a.file`, `x\\|y` | `a|b` 1 MiB | `t` |\n\nAfter: `--after.file`.\n\n## Next\n"
	cells, err := namedBy(doc)
	if err != nil || !slices.Equal(cells, []string{"`--a.file`, `x|y`"}) {
		t.Errorf("named-by cells %q, %v", cells, err)
	}
	c = newCLI()
	c.app.GetCommand("plan").Flag("prose.file", "").String()
	if got := missingInputs(c.app, strings.Join(cells, "\n")); !slices.Contains(got, "plan --prose.file") {
		t.Errorf("a flag named only in the prose passes: missing %v", got)
	}
}

// envReads finds the environment variables the program's sources read
// by name: os.Getenv("X") and the like.
var envReads = regexp.MustCompile(`(?:Getenv|LookupEnv|env)\("([A-Z][A-Z0-9_]*)"\)`)

// envInputs are the environment variables llm-prober reads as input:
// those its non-test sources (test helpers left out) name in a
// Getenv-like call, and the OTLP
// exporter's list; the Go runtime's own (GOGC, GOMEMLIMIT, only looked
// at to leave them be) are not ours.
func envInputs(t *testing.T) []string {
	t.Helper()
	names := slices.Clone(otlpcfg.EnvNames)
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "testutil") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != "../.." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a side module (tools, perf, deploy, dashboards)
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envReads.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == "GOGC" || n == "GOMEMLIMIT" })
	slices.Sort(names)
	return slices.Compact(names)
}
