package otelmetrics

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	promcfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// A header from a file goes with every push; a failing push is logged
// once, at warn, with the endpoint's credentials hidden, and its
// recovery at info.
func TestPushHeadersAndLog(t *testing.T) {
	rc := newReceiver(t)
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("k-36"), 0o600); err != nil {
		t.Fatal(err)
	}
	hc := promcfg.HTTPClientConfig{HTTPHeaders: &promcfg.Headers{Headers: map[string]promcfg.Header{"X-Api-Key": {Files: []string{key}}}}}
	m, err := New(config.OTLPMetrics{Endpoint: rc.url(), Interval: model.Duration(time.Hour), HTTPClientConfig: hc}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m"})
	_ = m.Shutdown(context.Background())
	if got := rc.headers.Get("X-Api-Key"); got != "k-36" {
		t.Errorf("X-Api-Key %q, want the file's", got)
	}

	const pass = "push-pass-36"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://tenant:" + pass + "@" + ln.Addr().String() + "/v1/metrics"
	ln.Close() // connection refused
	var buf bytes.Buffer
	pl := newPushLog(log.NewLogfmtLogger(&buf))
	m, err = New(config.OTLPMetrics{Endpoint: dead, Interval: model.Duration(time.Hour)}, Settings{Report: pl.Report})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		m.Record(&Request{Operation: OperationChat, Provider: "vllm", Model: "m"})
		_ = m.ForceFlush(context.Background())
	}
	_ = m.Shutdown(context.Background())
	pl.Report(nil)
	out := buf.String()
	if strings.Contains(out, pass) || strings.Count(out, "push failing") != 1 || !strings.Contains(out, "push recovered") {
		t.Errorf("log:\n%s\nwant one failure line without the password, then the recovery", out)
	}
}
