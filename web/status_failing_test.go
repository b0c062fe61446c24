package web

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
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

// Through the handler, with a real prober probing the mock: its last
// probe passes, but 13 of the hour's 200 failed (the board as the
// prober's observer fills it); the page counts it and ?failing=1 lists
// it, and the recent-probes table shows a failure's error text.
func TestStatusPageHandlerRecentFailures(t *testing.T) {
	safe := loadConfig(t, "1s", "1s", "flaky", mocktarget.URL(t))
	board, history := status.NewTracker(nil), prober.NewHistory(10, 10)
	sched := prober.NewScheduler(log.NewNopLogger(), prober.NewMetrics(prometheus.NewRegistry()), "test", nil)
	sched.Apply(safe.Get())
	t.Cleanup(func() { sched.Stop(5 * time.Second) })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // a hang detector
		if s := sched.Statuses(); len(s) == 1 && s[0].Last != nil {
			if !s[0].Last.Success() {
				t.Fatalf("the mock's probe failed: %v", s[0].Last.Err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no probe finished within a minute")
		}
	}
	for i := range 200 {
		r := &prober.Result{ID: "r" + strconv.Itoa(i), Target: "flaky", Module: "chat", Start: time.Now()}
		if i < 13 {
			r.Reason, r.Err = prober.ReasonHTTP5xx, errors.New("HTTP 503: <b>overloaded</b>")
		}
		board.Observe(r)
		history.Observe(r)
	}
	ui := New(Options{Config: safe.Get, Scheduler: sched, History: history, Board: board, MetricsPath: "/metrics"})
	get := func(target string) string {
		w := httptest.NewRecorder()
		ui.Status(w, httptest.NewRequest("GET", target, nil))
		return w.Body.String()
	}
	all := get("/")
	for _, want := range []string{"0 of 1 failing</b> (last probe)", "1 more with failures in the last hour</b>", "HTTP 503: &lt;b&gt;overloaded&lt;/b&gt;"} {
		if !strings.Contains(all, want) {
			t.Errorf("/ lacks %q:\n%s", want, all)
		}
	}
	if only := get("/?failing=1"); !strings.Contains(only, "<b>flaky</b>") {
		t.Errorf("/?failing=1 does not list flaky:\n%s", only)
	}
}
