package main

import (
	"fmt"
	"os"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/internal/logadapter"
)

// newLogger builds the go-kit logger selected by --log.level/--log.format.
// base has no timestamp or caller: logger is base stamped with them
// (logadapter.Stamp), and a library that wants a *slog.Logger gets
// logadapter.Slog(base), whose records carry their own.
func newLogger(lvl, format string) (logger, base log.Logger, err error) {
	var l log.Logger
	switch format {
	case "logfmt":
		l = log.NewLogfmtLogger(log.NewSyncWriter(os.Stderr))
	case "json":
		l = log.NewJSONLogger(log.NewSyncWriter(os.Stderr))
	default:
		return nil, nil, fmt.Errorf("unknown log format %q", format)
	}
	var opt level.Option
	switch lvl {
	case "debug":
		opt = level.AllowDebug()
	case "info":
		opt = level.AllowInfo()
	case "warn":
		opt = level.AllowWarn()
	case "error":
		opt = level.AllowError()
	default:
		return nil, nil, fmt.Errorf("unknown log level %q", lvl)
	}
	base = level.NewFilter(l, opt)
	return logadapter.Stamp(base), base, nil
}
