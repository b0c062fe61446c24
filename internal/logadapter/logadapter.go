// Package logadapter is the one place where the project's logging API,
// go-kit log, meets log/slog. Our code logs with go-kit only; a library
// that takes a *slog.Logger (Prometheus's discovery manager and file
// discovery, exporter-toolkit's web server) gets one from Slog, whose
// records come out through our go-kit logger with the keys, order and
// level values of our own lines:
//
//	level=warn ts=2026-01-02T03:04:05.678Z caller=file.go:42 msg="..." key=value
package logadapter

import (
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// The keys every line carries after level, before msg.
const (
	TimestampKey = "ts"
	CallerKey    = "caller"
)

// Stamp returns base with the timestamp (UTC, RFC 3339 with nanoseconds)
// and the caller (file:line of the Log call) of every line: the logger our
// code logs with. base writes and filters by level, and adds neither.
func Stamp(base log.Logger) log.Logger {
	return log.With(base, TimestampKey, log.DefaultTimestampUTC, CallerKey, log.DefaultCaller)
}

// Slog returns a *slog.Logger for a library, writing through base (the
// logger that Stamp stamps): each record as level, ts (the record's
// time), caller (the library's call site), msg, then the attributes of
// With and of the call, a group's as "group.key". Records below Info are
// dropped unbuilt; base's level filter decides the rest.
func Slog(base log.Logger) *slog.Logger {
	return slog.New(&handler{next: base})
}

// handler is the slog.Handler behind Slog. It is never changed once made.
type handler struct {
	next  log.Logger
	attrs []any  // With's, flattened
	group string // WithGroup's, dotted
}

func (h *handler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	kv := make([]any, 0, 8+len(h.attrs)+2*r.NumAttrs())
	t := r.Time
	if t.IsZero() { // a record not made by a slog.Logger
		t = time.Now()
	}
	kv = append(kv, level.Key(), levelValue(r.Level), TimestampKey, t.UTC().Format(time.RFC3339Nano))
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		if f.File != "" { // as go-kit's log.Caller writes it
			kv = append(kv, CallerKey, f.File[strings.LastIndexByte(f.File, '/')+1:]+":"+strconv.Itoa(f.Line))
		}
	}
	kv = append(kv, "msg", r.Message)
	kv = append(kv, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		kv = appendAttr(kv, h.group, a)
		return true
	})
	return h.next.Log(kv...)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	kv := append([]any(nil), h.attrs...)
	for _, a := range as {
		kv = appendAttr(kv, h.group, a)
	}
	return &handler{next: h.next, attrs: kv, group: h.group}
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	if h.group != "" {
		name = h.group + "." + name
	}
	return &handler{next: h.next, attrs: h.attrs, group: name}
}

// levelValue is go-kit's level at or below l.
func levelValue(l slog.Level) level.Value {
	switch {
	case l >= slog.LevelError:
		return level.ErrorValue()
	case l >= slog.LevelWarn:
		return level.WarnValue()
	case l >= slog.LevelInfo:
		return level.InfoValue()
	}
	return level.DebugValue()
}

// appendAttr appends a as key and value, a group's members each under
// "group.key"; an empty attribute or group is left out, as slog's own
// handlers do. The value is the Go value (a number, a time.Time, an
// error), which the go-kit logger formats as it formats ours.
func appendAttr(kv []any, group string, a slog.Attr) []any {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return kv
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" { // an unnamed group's members are inlined
			group = join(group, a.Key)
		}
		for _, m := range a.Value.Group() {
			kv = appendAttr(kv, group, m)
		}
		return kv
	}
	return append(kv, join(group, a.Key), a.Value.Any())
}

func join(group, key string) string {
	if group == "" {
		return key
	}
	return group + "." + key
}
