package logadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/llm-prober/llm-prober/internal/logadapter"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// here is the file:line of its caller, as the caller key writes it.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return file[strings.LastIndexByte(file, '/')+1:] + ":" + fmt.Sprint(line+1)
}

var logfmtKey = regexp.MustCompile(`(?:^| )([a-z_.]+)=`)

// keys are a logfmt line's keys in order (values here hold no " k=").
func keys(line string) []string {
	var ks []string
	for _, m := range logfmtKey.FindAllStringSubmatch(line, -1) {
		ks = append(ks, m[1])
	}
	return ks
}

// A library's record and our own line, logged alike, are written alike:
// the same keys in the same order (level, ts, caller, msg, then the
// line's), the same level value, a UTC RFC 3339 timestamp, the call site
// as caller and the same value formatting, in both --log.format values.
func TestSlogWritesAsOurs(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, format := range []string{"logfmt", "json"} {
		var buf bytes.Buffer
		w := log.NewLogfmtLogger(&buf)
		if format == "json" {
			w = log.NewJSONLogger(&buf)
		}
		base := level.NewFilter(w, level.AllowInfo())
		ours, lib := logadapter.Stamp(base), logadapter.Slog(base)
		err := errors.New("no such file")

		oursAt := here()
		level.Warn(ours).Log("msg", "a line", "n", 3, "ok", false, "d", 1500*time.Millisecond, "at", at, "err", err)
		libAt := here()
		lib.Warn("a line", "n", 3, "ok", false, "d", 1500*time.Millisecond, "at", at, "err", err)
		level.Debug(ours).Log("msg", "hidden")
		lib.Debug("hidden")

		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%s: %d lines, want 2 (no debug):\n%s", format, len(lines), buf.String())
		}
		if format == "logfmt" {
			want := []string{"level", "ts", "caller", "msg", "n", "ok", "d", "at", "err"}
			re := regexp.MustCompile(`^level=warn ts=(\S+) caller=(\S+) msg="a line" n=3 ok=false d=1.5s at=2026-01-02T03:04:05Z err="no such file"$`)
			for i, caller := range []string{oursAt, libAt} {
				if got := keys(lines[i]); !slices.Equal(got, want) {
					t.Errorf("keys %v, want %v: %s", got, want, lines[i])
				}
				m := re.FindStringSubmatch(lines[i])
				if m == nil {
					t.Errorf("line %d not as %s:\n%s", i, re, lines[i])
					continue
				}
				if ts, err := time.Parse(time.RFC3339Nano, m[1]); err != nil || !strings.HasSuffix(m[1], "Z") || time.Since(ts) > time.Minute {
					t.Errorf("ts %q: want now, UTC, RFC 3339 (%v)", m[1], err)
				}
				if m[2] != caller {
					t.Errorf("caller %s, want %s", m[2], caller)
				}
			}
			continue
		}
		var got [2]map[string]any
		for i := range got {
			if err := json.Unmarshal([]byte(lines[i]), &got[i]); err != nil {
				t.Fatalf("%v: %s", err, lines[i])
			}
		}
		if got[0]["caller"] != oursAt || got[1]["caller"] != libAt {
			t.Errorf("callers %v and %v, want %s and %s", got[0]["caller"], got[1]["caller"], oursAt, libAt)
		}
		for _, g := range got {
			delete(g, "caller")
			ts, _ := g["ts"].(string)
			if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") {
				t.Errorf("ts %q: want UTC, RFC 3339 (%v)", ts, err)
			}
			delete(g, "ts")
		}
		a, _ := json.Marshal(got[0])
		b, _ := json.Marshal(got[1])
		if string(a) != string(b) || got[0]["level"] != "warn" {
			t.Errorf("ours and the library's differ, or not at warn:\n%s\n%s", a, b)
		}
	}
}

// The attributes of With and of groups come after msg, a group's members
// as "group.key"; an empty attribute or group is left out and an unnamed
// group's members inlined. Records below Info are dropped even where the
// go-kit logger allows debug (as the slog bridge before), and the go-kit
// level filter drops the rest it does not allow; level values map down
// to go-kit's four.
func TestSlogAttrsAndLevels(t *testing.T) {
	var buf bytes.Buffer
	base := level.NewFilter(log.NewLogfmtLogger(&buf), level.AllowDebug())
	lib := logadapter.Slog(base).With("discovery", "file").WithGroup("g").With("a", 1)
	lib.Info("m", "b", "x", slog.Group("h", "c", 2), slog.Attr{}, slog.Group("", "d", 3), slog.Group("empty")) //nolint:sloglint // mixed on purpose: libraries pass both
	lib.Debug("not written")
	lib.Log(context.Background(), slog.LevelWarn+2, "between warn and error")
	lib.Log(context.Background(), slog.LevelError+4, "past error")
	want := []string{
		`level=info msg=m discovery=file g.a=1 g.b=x g.h.c=2 g.d=3`,
		`level=warn msg="between warn and error" discovery=file g.a=1`,
		`level=error msg="past error" discovery=file g.a=1`,
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	drop := regexp.MustCompile(` ts=\S+ caller=\S+`)
	for i, l := range lines {
		if got := drop.ReplaceAllString(l, ""); got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}

	buf.Reset()
	warn := logadapter.Slog(level.NewFilter(log.NewLogfmtLogger(&buf), level.AllowWarn()))
	warn.Info("not written")
	warn.Error("written")
	if got := buf.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "level=error ") {
		t.Errorf("at warn: %q, want the error line only", got)
	}
}

// A library's own records, exporter-toolkit's web server here (as the
// daemon starts it), come out through the go-kit logger as our lines do.
func TestLibraryLogsAsOurs(t *testing.T) {
	var buf testutil.SyncBuffer
	base := level.NewFilter(log.NewLogfmtLogger(&buf), level.AllowInfo())
	level.Info(logadapter.Stamp(base)).Log("msg", "ours", "address", "127.0.0.1:0")
	addrs, systemd, config := []string{"127.0.0.1:0"}, false, ""
	srv := &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: time.Second}
	served := make(chan error, 1)
	go func() {
		served <- web.ListenAndServe(srv, &web.FlagConfig{WebListenAddresses: &addrs, WebSystemdSocket: &systemd, WebConfigFile: &config},
			logadapter.Slog(base))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "TLS is disabled") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_ = srv.Close()
	<-served

	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 {
		t.Fatalf("want our line and exporter-toolkit's two:\n%s", out)
	}
	line := regexp.MustCompile(`^level=info ts=\d{4}-\d\d-\d\dT[\d:.]+Z caller=[a-z_]+\.go:\d+ msg=`)
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("not as %s:\n%s", line, l)
		}
	}
	for _, want := range []string{
		`msg=ours address=127.0.0.1:0`,
		`msg="Listening on" address=127.0.0.1:`,
		`msg="TLS is disabled." http2=false address=127.0.0.1:`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}
