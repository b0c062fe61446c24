package web

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/prober"
)

// The failing count and the failing-only view cover the last hour, not
// only the last probe (issue 33: a target at 93.5 % success whose last
// probe passed showed as none failing).
func TestStatusPageFailingInTheHour(t *testing.T) {
	ok := &prober.Result{ID: "p1", Start: time.Now()}
	bad := &prober.Result{ID: "p2", Start: time.Now(), Reason: prober.ReasonHTTP5xx, Err: errors.New("HTTP 503")}
	rows := func() []statusRow {
		return []statusRow{
			{Status: prober.Status{Target: "down", Module: "chat", Last: bad}},
			{Status: prober.Status{Target: "flaky", Module: "chat", Last: ok}, HasHour: true, Hour: status.Summary{Probes: 200, OK: 187, Good: 187}},
			{Status: prober.Status{Target: "fine", Module: "chat", Last: ok}, HasHour: true, Hour: status.Summary{Probes: 200, OK: 200, Good: 200}},
		}
	}
	render := func(failingOnly bool) string {
		page := statusPage{Rows: rows(), FailingOnly: failingOnly}
		page.count()
		var b strings.Builder
		if err := statusTemplate.Execute(&b, page); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	all := render(false)
	for _, want := range []string{"1 of 3 failing</b> (last probe)", "1 more with failures in the last hour</b>", "93.5%"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page lacks %q:\n%s", want, all)
		}
	}
	only := render(true)
	if !strings.Contains(only, "<b>down</b>") || !strings.Contains(only, "<b>flaky</b>") || strings.Contains(only, "<b>fine</b>") {
		t.Errorf("?failing=1 should show down and flaky, not fine:\n%s", only)
	}
}

// The recent-probes table shows a failed probe's error text, escaped,
// with its control characters visible (issue 33: it gave the reason only).
func TestHistoryShowsErrorText(t *testing.T) {
	h := historyData{Successes: 1, Failures: 1, Entries: []*prober.HistoryEntry{{
		Result: prober.Result{ID: "p9", Target: "t", Module: "chat", Reason: prober.ReasonHTTP5xx},
		Error:  "HTTP 503: <script>alert(1)</script>\x1b[31m",
		End:    time.Now(),
	}}}
	var b strings.Builder
	if err := statusTemplate.ExecuteTemplate(&b, "history", h); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.Contains(got, "HTTP 503: &lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m") || strings.Contains(got, "<script>") || strings.Contains(got, "\x1b") {
		t.Errorf("the error text is missing, unescaped or holds a raw escape:\n%s", got)
	}
}
