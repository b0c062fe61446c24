package main

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/config"
)

// inventory is the "Input inventory" section of docs/reliability.md.
func inventory(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(b), "\n## Input inventory\n")
	if !ok {
		t.Fatal("docs/reliability.md has no Input inventory section")
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
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
}
