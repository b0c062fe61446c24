package web

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/status"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/prober"
)

// statusRows caps the targets table: with thousands of targets the page
// shows the worst ones (failures sort first) and says how many it left out.
const statusRows = 500

// statusRefresh is how often the page reloads itself.
const statusRefresh = 30 * time.Second

// statusRow is one (target, module) on the status page.
type statusRow struct {
	prober.Status
	Hour      status.Summary
	HasHour   bool
	Server    status.ServerSummary
	HasServer bool
	SLO       struct{ TTFT, TPOT, E2EL time.Duration } // 0: not set
}

// failing is the last probe's outcome: failures sort first.
func (r *statusRow) failing() bool { return r.Last != nil && !r.Last.Success() }

// failedRecently: a probe of the last hour failed, though the last one
// may have passed (issue 33: a target at 93.5 % success counted as none
// failing). These sort right after the failing ones (lowest success).
func (r *statusRow) failedRecently() bool { return r.HasHour && r.Hour.OK < r.Hour.Probes }

type statusPage struct {
	Version     string
	Fleet       string // shard and discovery (status_fleet.go)
	MetricsPath string
	Refresh     int
	Rows        []statusRow
	Hidden      int
	// Failing of Total (target, module) pairs failed their last probe,
	// and Recent more failed a probe of the last hour; FailingOnly:
	// ?failing=1, the table shows both.
	Failing, Recent, Total int
	FailingOnly            bool
	History                historyData
}

// Status is the landing page: every (target, module), worst first.
func (u *UI) Status(w http.ResponseWriter, r *http.Request) {
	failingOnly := r.URL.Query().Get("failing") == "1"
	page := statusPage{Version: versionLine(), Fleet: u.fleetLine(), MetricsPath: u.o.MetricsPath, Refresh: int(statusRefresh.Seconds()),
		Rows: u.statusRows(), History: u.historyData(failingOnly), FailingOnly: failingOnly}
	page.count()
	if len(page.Rows) > statusRows {
		page.Hidden = len(page.Rows) - statusRows
		page.Rows = page.Rows[:statusRows]
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statusTemplate.Execute(textfmt.NewSafeWriter(w), page); err != nil { // errors quote servers
		level.Warn(u.logger).Log("msg", "rendering the status page", "err", err)
	}
}

// count sets Failing, Recent and Total from the sorted rows (failing
// first, then the lowest success ratios), and keeps only those two
// groups for ?failing=1.
func (page *statusPage) count() {
	page.Total = len(page.Rows)
	for _, r := range page.Rows {
		switch {
		case r.failing():
			page.Failing++
		case r.failedRecently():
			page.Recent++
		}
	}
	if page.FailingOnly {
		page.Rows = slices.DeleteFunc(page.Rows, func(r statusRow) bool { return !r.failing() && !r.failedRecently() })
	}
}

// statusRows lists every job, worst first: last probe failed, then the
// lowest success and SLO attainment ratios of the hour.
func (u *UI) statusRows() []statusRow {
	cfg := u.config()
	if cfg == nil {
		cfg = &config.Config{}
	}
	jobs := u.o.Scheduler.Statuses()
	rows := make([]statusRow, 0, len(jobs))
	for _, j := range jobs {
		r := statusRow{Status: j}
		r.Hour, r.HasHour = u.o.Board.Job(j.Target, j.Module)
		r.Server, r.HasServer = u.o.Board.Server(j.Target)
		if m := cfg.Modules[j.Module]; m != nil {
			r.SLO.TTFT, r.SLO.TPOT, r.SLO.E2EL = time.Duration(m.SLO.TTFT), time.Duration(m.SLO.TPOT), time.Duration(m.SLO.E2EL)
		}
		rows = append(rows, r)
	}
	ratio := func(v float64) float64 { // no probes yet: sorts with the healthy
		if math.IsNaN(v) {
			return 2
		}
		return v
	}
	slices.SortStableFunc(rows, func(x, y statusRow) int {
		if x.failing() != y.failing() {
			if x.failing() {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(ratio(x.Hour.SuccessRatio()), ratio(y.Hour.SuccessRatio())),
			cmp.Compare(ratio(x.Hour.GoodRatio()), ratio(y.Hour.GoodRatio())))
	})
	return rows
}

// statusErrLen caps the error message shown in a row: the whole one is on
// the probe's /logs page.
const statusErrLen = 300

// visible writes control characters (a server's terminal escapes, NULs)
// as \xNN; the template escapes the HTML.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// errText is an error message as a row shows it: visible, and cut at
// statusErrLen runes.
func errText(msg string) string {
	m := []rune(visible(msg))
	if len(m) > statusErrLen {
		return string(m[:statusErrLen]) + "…"
	}
	return string(m)
}

// Formatting for the templates; "—" is a value not measured.
var statusFuncs = template.FuncMap{
	"errmsg":  func(err error) string { return errText(err.Error()) },
	"errtext": errText,
	"ms":      func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) },
	"ago": func(t time.Time) string {
		return time.Since(t).Truncate(time.Second).String() + " ago"
	},
	"pct": func(v float64) string {
		if math.IsNaN(v) {
			return notMeasured
		}
		return fmt.Sprintf("%.1f%%", 100*v)
	},
	"num": func(v float64) string {
		if math.IsNaN(v) {
			return notMeasured
		}
		return fmt.Sprintf("%.3g", v)
	},
	"rate": func(perMinute float64) string {
		if math.IsNaN(perMinute) {
			return notMeasured
		}
		return fmt.Sprintf("%.3g/min", perMinute)
	},
	// over: the hour's p99 is past the SLO, more than 1% missed it.
	"over": func(q status.Quantiles, slo time.Duration) bool { return slo > 0 && q.N > 0 && q.P99 > slo },
	"spark": func(v []float64, top float64, title string) template.HTML {
		return sparkline(v, top, title)
	},
	"outcome": outcome,
}

var statusTemplate = template.Must(template.New("status").Funcs(statusFuncs).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>llm-prober</title>
<meta http-equiv="refresh" content="{{.Refresh}}">
<style>
body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.fail{color:#b00}.ok{color:#070}.warn{color:#b60}.dim{color:#777;font-size:85%}
svg.spark{display:block;fill:#36c;stroke:#36c;stroke-width:1.2}svg.spark polyline{fill:none}
</style>
</head><body>
<h1>llm-prober</h1>
<p>Continuous synthetic prober for LLM inference servers. {{.Version}}</p>
{{with .Fleet}}<p>{{.}}</p>{{end}}
<p><a href="{{.MetricsPath}}">Metrics</a> · <a href="/config">Configuration</a> · <a href="/-/healthy">Health</a> · <a href="/-/ready">Readiness</a></p>
<h2>Targets, last hour</h2>
<p><b class="{{if .Failing}}fail{{else}}ok{{end}}">{{.Failing}} of {{.Total}} failing</b> (last probe) ·
<b class="{{if .Recent}}warn{{else}}ok{{end}}">{{.Recent}} more with failures in the last hour</b> ·
{{if .FailingOnly}}<a href="/">show all</a>{{else}}<a href="/?failing=1">show only those</a>{{end}}</p>
<p class="dim">Failing first, then the lowest success and SLO attainment ratios of the scheduled probes. Percentiles are over the successful ones of the hour
(at most 6 a minute sampled); trends have one point a minute. Server signals come from the target's own /metrics
(server_metrics). Refreshes every {{.Refresh}} s.</p>
<table><tr><th>Target / module</th><th>Last probe</th><th>Success</th><th>SLO attainment</th><th>TTFT p50 / p99</th><th>TPOT p50 / p99</th><th>E2EL p50 / p99</th><th>KV cache</th><th>Queue</th><th>Preemptions</th></tr>
{{range .Rows}}<tr>
<td><b>{{.Target}}</b> / {{.Module}}<div class="dim">{{.Model}} · every {{.Interval}}</div></td>
{{with .Last}}<td>{{if .Success}}<span class="ok">{{if .Good}}good{{else}}ok, SLO missed: {{range $i, $s := .SLOViolations}}{{if $i}}, {{end}}{{$s}}{{end}}{{end}}</span>{{else}}<span class="fail">{{.Reason}}</span>{{with .Err}}<div class="fail">{{errmsg .}}</div>{{end}}{{end}}{{if .Warmup}} <span class="dim" title="after a target restart ({{.Warmup}}): a success's latencies are kept out of the SLO series, a failure counts">warm-up</span>{{end}}{{if .WarmupOpen}} <span class="warn" title="the latencies of the next successful probes are kept out of the SLO series">warm-up open until {{.WarmupUntil.UTC.Format "15:04:05"}} UTC</span>{{end}}
<div class="dim">{{ago .Start}} · <a href="/logs?id={{.ID}}">{{.ID}}</a></div></td>{{else}}<td class="dim">not probed yet</td>{{end}}
{{if .HasHour}}{{$h := .Hour}}
<td class="{{if lt $h.SuccessRatio 1.0}}fail{{else}}ok{{end}}">{{pct $h.SuccessRatio}}<div class="dim">{{$h.OK}} / {{$h.Probes}}</div>{{spark $h.SuccessTrend 1.0 "success ratio per minute, last hour"}}</td>
<td>{{pct $h.GoodRatio}}<div class="dim">{{$h.Good}} good</div></td>
<td class="{{if over $h.TTFT .SLO.TTFT}}warn{{end}}">{{if $h.TTFT.N}}{{ms $h.TTFT.P50}} / {{ms $h.TTFT.P99}}{{else}}—{{end}}<div class="dim">{{with .SLO.TTFT}}SLO {{.}}{{end}}</div>{{spark $h.TTFTTrend 0.0 "median TTFT per minute, last hour"}}</td>
<td class="{{if over $h.TPOT .SLO.TPOT}}warn{{end}}">{{if $h.TPOT.N}}{{ms $h.TPOT.P50}} / {{ms $h.TPOT.P99}}{{else}}—{{end}}<div class="dim">{{with .SLO.TPOT}}SLO {{.}}{{end}}</div></td>
<td class="{{if over $h.E2EL .SLO.E2EL}}warn{{end}}">{{if $h.E2EL.N}}{{ms $h.E2EL.P50}} / {{ms $h.E2EL.P99}}{{else}}—{{end}}<div class="dim">{{with .SLO.E2EL}}SLO {{.}}{{end}}</div></td>
{{else}}<td>—</td><td>—</td><td>—</td><td>—</td><td>—</td>{{end}}
{{if .HasServer}}{{$s := .Server}}
<td>{{pct $s.Latest.KVCacheUsage}}{{spark $s.KVCacheTrend 1.0 "KV-cache usage per minute, last hour"}}</td>
<td>{{num $s.Latest.RequestsWaiting}} waiting<div class="dim">{{num $s.Latest.RequestsRunning}} running</div>{{spark $s.QueueTrend 0.0 "requests waiting per minute, last hour"}}</td>
<td>{{rate $s.PreemptionsPerMinute}}</td>
{{else}}<td class="dim">—</td><td class="dim">—</td><td class="dim">—</td>{{end}}
</tr>
{{else}}<tr><td colspan="10">{{if $.FailingOnly}}none failing, none failed in the last hour{{else}}no targets configured{{end}}</td></tr>
{{end}}</table>
{{if .Hidden}}<p class="dim">{{.Hidden}} more (target, module) pairs, all doing better than these, are not shown; see {{.MetricsPath}}.</p>{{end}}
{{template "history" .History}}
</body></html>
`))
