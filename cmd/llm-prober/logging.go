package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

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

// slogFrom bridges go-kit to the *slog.Logger that exporter-toolkit and
// discovery want.
func slogFrom(l log.Logger) *slog.Logger {
	return slog.New(sloggokit.NewGoKitHandler(tsKey{l}, nil))
}

// tsKey renames the slog bridge's "time" to the "ts" of every other line,
// in the same UTC format and place (after the level), so that one log
// stream has one timestamp key.
type tsKey struct{ next log.Logger }

func (k tsKey) Log(keyvals ...any) error {
	for i := 0; i+1 < len(keyvals); i += 2 {
		if t, ok := keyvals[i+1].(time.Time); ok && keyvals[i] == slog.TimeKey {
			at := 0
			if keyvals[0] == level.Key() {
				at = 2
			}
			copy(keyvals[at+2:i+2], keyvals[at:i])
			keyvals[at], keyvals[at+1] = "ts", t.UTC().Format(time.RFC3339Nano)
			break
		}
	}
	return k.next.Log(keyvals...)
}
