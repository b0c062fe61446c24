package targets

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-kit/log"

	"github.com/llm-prober/llm-prober/internal/logadapter"
)

// quietEvery is how long a repeated discovery log line stays silent.
const quietEvery = time.Minute

// maxQuietKeys bounds the lines remembered; past it the memory restarts.
const maxQuietKeys = 1024

// quiet wraps the Fleet's logger (its own lines and the discovery's) so
// that a line repeated with the same keys and values, its timestamp and
// caller aside, is written once a minute: file_sd logs each failed read,
// and a log file written next to a bad file in its directory made about
// 3,000 errors a second.
func quiet(next log.Logger) log.Logger {
	return &quietLogger{next: next, seen: map[string]time.Time{}, now: time.Now}
}

type quietLogger struct {
	next log.Logger

	mu   sync.Mutex
	seen map[string]time.Time
	now  func() time.Time
}

func (q *quietLogger) Log(keyvals ...any) error {
	var b strings.Builder
	for i := 0; i < len(keyvals); i += 2 {
		if keyvals[i] == logadapter.TimestampKey || keyvals[i] == logadapter.CallerKey {
			continue
		}
		fmt.Fprint(&b, keyvals[i], "\xff")
		if i+1 < len(keyvals) {
			fmt.Fprint(&b, keyvals[i+1], "\xff")
		}
	}
	key := b.String()
	q.mu.Lock()
	now := q.now()
	last, ok := q.seen[key]
	repeat := ok && now.Sub(last) < quietEvery
	if !repeat {
		if len(q.seen) >= maxQuietKeys {
			clear(q.seen)
		}
		q.seen[key] = now
	}
	q.mu.Unlock()
	if repeat {
		return nil
	}
	return q.next.Log(keyvals...)
}
