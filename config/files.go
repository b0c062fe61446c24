package config

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// CheckFiles reports, as *Errors in file order, every file the config
// names (ca_file, credentials_file, password_file, http_headers.*.files,
// any *_file) that cannot be read. It is for --config.check, like
// promtool's check of rule files. Load does not do it on purpose: a
// running prober fails only the probes of a target whose file is missing,
// and picks the file up once it appears, so a reload must not refuse it.
func CheckFiles(cfg *Config) []error {
	var errs []*Error
	walkFiles(reflect.ValueOf(cfg).Elem(), "", false, func(path, name string) {
		if err := readable(name); err != nil {
			path, line := cfg.src.locate(path)
			errs = append(errs, &Error{File: cfg.src.file, Line: line, Path: path, Msg: err.Error()})
		}
	})
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// source is where a loaded config came from: its file, and the line of
// each file field, kept apart from the decoder's lines so that a running
// config does not hold a line for every field.
type source struct {
	file  string
	lines map[string]int
}

// locate returns the path as written in the file and its line.
// prometheus/common moves bearer_token_file to authorization.credentials_file.
func (s source) locate(path string) (string, int) {
	if l, ok := s.lines[path]; ok {
		return path, l
	}
	if p, ok := strings.CutSuffix(path, "authorization.credentials_file"); ok {
		if l, ok := s.lines[p+"bearer_token_file"]; ok {
			return p + "bearer_token_file", l
		}
	}
	return path, 1 // a config built in Go
}

func fileFieldLines(lines map[string]int) map[string]int {
	out := map[string]int{}
	for p, l := range lines {
		if isFileField(p[strings.LastIndex(p, ".")+1:]) {
			out[p] = l
		}
	}
	return out
}

// isFileField reports whether a YAML key (or "files[i]") names files.
func isFileField(key string) bool {
	return strings.HasSuffix(key, "_file") || key == "files" || strings.HasPrefix(key, "files[")
}

// walkFiles calls fn with the path and value of every file field under v,
// following yaml tags; untagged fields (compiled regexps) hold no files.
func walkFiles(v reflect.Value, path string, isFile bool, fn func(path, name string)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkFiles(v.Elem(), path, isFile, fn)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			switch {
			case !f.IsExported() || name == "-":
			case strings.Contains(opts, "inline"):
				walkFiles(v.Field(i), path, false, fn)
			case name != "":
				walkFiles(v.Field(i), join(path, name), isFileField(name), fn)
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
		for _, k := range keys {
			walkFiles(v.MapIndex(k), join(path, k.String()), false, fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkFiles(v.Index(i), index(path, i), isFile, fn)
		}
	case reflect.String:
		if isFile && v.String() != "" {
			fn(path, v.String())
		}
	}
}

// readable opens name, refusing what would block (a FIFO) or is no file.
// The check is on the opened descriptor (safefile.OpenRegular): a file
// swapped for a FIFO after a stat would block a plain open forever.
func readable(name string) error {
	f, err := safefile.OpenRegular(name)
	if err != nil {
		return err
	}
	return f.Close()
}
