package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

func TestProgressPrinter(t *testing.T) {
	var b strings.Builder
	p := &ProgressPrinter{W: &b, Terminal: true, Label: "x: "}
	p.Print(loadtest.Progress{Elapsed: 2 * time.Second, Done: 50, Total: 100, InFlight: 3})
	p.Print(loadtest.Progress{Elapsed: 4 * time.Second, Done: 100, Total: 100, Final: true})
	if s := b.String(); !strings.Contains(s, "\r\033[K[============            ] x: 50/100 req  25.0 req/s  3 in flight  0 failed  ETA 2s") || !strings.HasSuffix(s, "\n") {
		t.Errorf("terminal: %q", s)
	}
	b.Reset()
	p = &ProgressPrinter{W: &b, Every: time.Second}
	for _, e := range []time.Duration{300 * time.Millisecond, 1200 * time.Millisecond, 1500 * time.Millisecond} {
		p.Print(loadtest.Progress{Elapsed: e, Done: 1, Remaining: 5 * time.Second})
	}
	p.Print(loadtest.Progress{Elapsed: 2 * time.Second, Done: 2, Final: true})
	if lines := strings.Count(b.String(), "\n"); lines != 2 || strings.Contains(b.String(), "\r") || !strings.Contains(b.String(), "ETA 5s sending") {
		t.Errorf("lines (%d): %q", lines, b.String())
	}
}
