package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// maxFileBytes caps a config file before YAML sees it: yaml.v3 builds the
// whole node tree before the budget can count it, at about 4 MB/s, so
// this keeps any refusal under about 2 s (a 2,000,000-key mapping does not
// fit). A static target with auth, TLS, headers and server_metrics is
// about 600 bytes; larger fleets belong in target_discovery.
const maxFileBytes = 8 << 20

// LoadFile reads, decodes, defaults and validates the file at path.
func LoadFile(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > maxFileBytes {
		return nil, tooBig(path) // refused unread
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return Load(data, path)
}

// Load decodes, defaults and validates data. filename is used in error
// messages and relative *_file paths are resolved against its directory.
// Unknown fields are errors. Every error found is reported, each an *Error
// (see Error): first all decoding errors; if there are none, all
// validation errors.
func Load(data []byte, filename string) (*Config, error) {
	if len(data) > maxFileBytes {
		return nil, tooBig(filename)
	}
	l := &loader{
		file: filename, dir: filepath.Dir(filename), cfg: &Config{},
		lines: map[string]int{}, resolved: map[*yaml.Node]bool{},
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(l); err != nil && !errors.Is(err, io.EOF) {
		var e *Error
		var te *yaml.TypeError
		switch {
		case errors.As(err, &e):
			return nil, e
		case errors.As(err, &te) && l.root != nil:
			// Type errors yaml.v3 kept when the loader's decode stopped
			// early: with the loader's own errors.
			l.typeErrors(te, l.root)
		default:
			return nil, fromYAML(err, filename, 1, "")
		}
	}
	if err := joinErrors(l.errs); err != nil {
		return nil, err
	}
	cfg := l.cfg
	l.finish(cfg)
	c := &checker{file: filename, lines: l.lines}
	c.config(cfg)
	if err := joinErrors(c.errs); err != nil {
		return nil, err
	}
	cfg.src = source{file: filename, lines: fileFieldLines(l.lines)}
	return cfg, nil
}

func tooBig(file string) error {
	return &Error{File: file, Line: 1, Msg: fmt.Sprintf("the file is over the %d MiB limit", maxFileBytes>>20)}
}
