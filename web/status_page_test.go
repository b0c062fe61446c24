package web

import (
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/prober"
)

// A row whose last probe left a warm-up open says so, with its end; a
// closed one only marks the probe.
func TestStatusPageWarmupOpen(t *testing.T) {
	until := time.Now().Add(time.Minute)
	render := func(last *prober.Result) string {
		var b strings.Builder
		page := statusPage{Rows: []statusRow{{Status: prober.Status{Target: "t", Module: "chat", Last: last}}}}
		if err := statusTemplate.Execute(&b, page); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	open := render(&prober.Result{ID: "p1", Start: time.Now(), Reason: prober.ReasonHTTP5xx, Warmup: prober.WarmupServerRestart, WarmupUntil: until})
	if want := "warm-up open until " + until.UTC().Format("15:04:05") + " UTC"; !strings.Contains(open, want) || !strings.Contains(open, `<span class="fail">http_5xx</span>`) {
		t.Errorf("open warm-up: page lacks %q or the failure:\n%s", want, open)
	}
	closed := render(&prober.Result{ID: "p2", Start: time.Now(), Warmup: prober.WarmupServerRestart, WarmupUntil: time.Now().Add(-time.Second)})
	if strings.Contains(closed, "warm-up open") || !strings.Contains(closed, ">warm-up</span>") {
		t.Errorf("closed warm-up: page says it is open, or does not mark the probe:\n%s", closed)
	}
}
