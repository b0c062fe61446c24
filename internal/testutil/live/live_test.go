package live

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStopAndKill(t *testing.T) {
	p, err := Start("sleep", nil, "sleep", "30")
	if err != nil {
		t.Skip(err)
	}
	if p.Exited() {
		t.Fatal("exited at once")
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || p.Err() == nil {
		t.Fatalf("after SIGTERM: exited %v, err %v", p.Exited(), p.Err())
	}
	q, err := Start("sleep", nil, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	q.Kill()
	if !q.Exited() || !strings.Contains(q.Err().Error(), "killed") {
		t.Fatalf("after SIGKILL: exited %v, err %v", q.Exited(), q.Err())
	}
}

func TestWaitHTTP(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := WaitHTTP(nil, srv.URL, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 3 {
		t.Errorf("%d requests, want 3 (ready on the third)", got)
	}

	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	if err := WaitHTTP(nil, "http://"+addr, 300*time.Millisecond); err == nil || errors.Is(err, ErrExited) {
		t.Errorf("nothing listening: %v", err)
	}
	p, err := Start("true", nil, "true")
	if err != nil {
		t.Skip(err)
	}
	<-p.Done()
	if err := WaitHTTP(p, "http://"+addr, 10*time.Second); !errors.Is(err, ErrExited) {
		t.Errorf("process gone: %v, want ErrExited", err)
	}
}

func TestParseRules(t *testing.T) {
	rules, err := ParseRules([]byte(`groups:
  - name: a
    rules:
      - record: r:x
        expr: sum(x)
        labels: {slo: ttft}
  - name: b
    rules:
      - alert: A
        expr: up == 0
        annotations: {summary: down}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Record != "r:x" || rules[0].Labels["slo"] != "ttft" ||
		rules[1].Alert != "A" || rules[1].Expr != "up == 0" || rules[1].Annotations["summary"] != "down" {
		t.Errorf("rules %+v", rules)
	}
	if _, err := ParseRules([]byte("groups: [")); err == nil {
		t.Error("no error for broken YAML")
	}
}

func TestLoadBody(t *testing.T) {
	b := string(LoadBody(3, 7))
	for _, want := range []string{`"content":"load load load"`, `"max_tokens":7`, `"stream":true`, `"ignore_eos":true`} {
		if !strings.Contains(b, want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
