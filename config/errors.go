package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a configuration error pinned to a place in the file. It prints
// as FILE:LINE: PATH: MESSAGE, e.g.
//
//	llm-prober.yml:14: targets[1].timeout: timeout 30s is greater than interval 15s
//
// Path is empty only for YAML syntax errors, which have no field yet.
type Error struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Path, e.Msg)
}

// yamlLineRE finds the "line N: " that yaml.v3 puts in its messages.
var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// fromYAML turns a yaml.v3 error into an *Error; yaml.v3 knows the line of
// syntax and type errors, otherwise line is used.
func fromYAML(err error, file string, line int, path string) *Error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return &Error{File: file, Line: line, Path: path, Msg: msg}
}
