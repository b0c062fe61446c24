package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	sloggokit "github.com/tjhop/slog-gokit"
)

// newLogger builds the go-kit logger selected by --log.level/--log.format.
// base has no timestamp or caller: the slog bridge adds its own.
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
	return log.With(base, "ts", log.DefaultTimestampUTC, "caller", log.DefaultCaller), base, nil
}

// slogFrom bridges go-kit to the *slog.Logger that exporter-toolkit wants.
func slogFrom(l log.Logger) *slog.Logger {
	return slog.New(sloggokit.NewGoKitHandler(l, nil))
}
