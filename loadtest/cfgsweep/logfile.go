package cfgsweep

import (
	"fmt"
	"os"
	"sync"
)

// MaxLogFileBytes caps a server's log file: vLLM at debug level writes
// gigabytes in a long sweep; the start and the crash are what matter.
const MaxLogFileBytes = 64 << 20

// logFile writes a server's whole output to a file, up to its cap; what
// comes after is counted and noted at the end. A write error is kept,
// never returned: the server's pipe (and the ring) must go on.
type logFile struct {
	mu      sync.Mutex
	f       *os.File
	max     int64
	written int64
	dropped int64
	err     error
}

// createLogFile creates (or truncates) path, readable by its owner only:
// a server may log what it was given.
func createLogFile(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return &logFile{f: f, max: MaxLogFileBytes}, nil
}

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	if room := l.max - l.written; int64(len(p)) > room {
		l.dropped += int64(len(p)) - max(room, 0)
		p = p[:max(room, 0)]
	}
	if len(p) > 0 && l.err == nil {
		var w int
		w, l.err = l.f.Write(p)
		l.written += int64(w)
	}
	return n, nil
}

// Close notes a cut and closes the file; the error is the first one met.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dropped > 0 && l.err == nil {
		_, l.err = fmt.Fprintf(l.f, "\n[llm-prober: log cut at %d MiB; %d bytes more were not written]\n", l.max>>20, l.dropped)
	}
	if err := l.f.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}
