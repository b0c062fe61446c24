package targets

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// quietEvery is how long a repeated discovery log line stays silent.
const quietEvery = time.Minute

// maxQuietKeys bounds the lines remembered; past it the memory restarts.
const maxQuietKeys = 1024

// quiet wraps the discovery's logger so that a line repeated with the
// same message and attributes is written once a minute: file_sd logs each
// failed read, and a log file written next to a bad file in its directory
// made about 3,000 errors a second.
func quiet(l *slog.Logger) *slog.Logger {
	return slog.New(&quietHandler{next: l.Handler(), st: &quietState{seen: map[string]time.Time{}, now: time.Now}})
}

type quietState struct {
	mu   sync.Mutex
	seen map[string]time.Time
	now  func() time.Time
}

type quietHandler struct {
	next   slog.Handler
	prefix string // the attributes and groups added by With
	st     *quietState
}

func (h *quietHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *quietHandler) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString(r.Level.String())
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString("\xff" + a.String())
		return true
	})
	key, now := b.String(), h.st.now()
	h.st.mu.Lock()
	last, ok := h.st.seen[key]
	if !ok || now.Sub(last) >= quietEvery {
		if len(h.st.seen) >= maxQuietKeys {
			clear(h.st.seen)
		}
		h.st.seen[key] = now
	}
	h.st.mu.Unlock()
	if ok && now.Sub(last) < quietEvery {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h *quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	p := h.prefix
	for _, a := range as {
		p += a.String() + "\xff"
	}
	return &quietHandler{next: h.next.WithAttrs(as), prefix: p, st: h.st}
}

func (h *quietHandler) WithGroup(name string) slog.Handler {
	return &quietHandler{next: h.next.WithGroup(name), prefix: h.prefix + name + ".", st: h.st}
}
