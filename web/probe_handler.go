package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/expfmt"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/prober"
)

// scrapeTimeoutOffset leaves Prometheus time to receive the answer before
// its own scrape timeout fires, as blackbox_exporter does.
const scrapeTimeoutOffset = 500 * time.Millisecond

// Probe runs one probe now, blackbox_exporter style, and answers
// with a few gauges about it (probeRegistry), always with status 200 once
// the probe ran: on-demand probes never touch the long-lived scheduler
// metrics. They are kept in the history.
func (u *UI) Probe(w http.ResponseWriter, r *http.Request) {
	cfg := u.config()
	if cfg == nil {
		http.Error(w, "no configuration loaded", http.StatusServiceUnavailable)
		return
	}
	// Every on-demand probe is a real generation on a GPU server: cap
	// them so that whoever reaches this port cannot flood a target.
	select {
	case u.probeSlots <- struct{}{}:
		defer func() { <-u.probeSlots }()
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("too many on-demand probes in flight (--probe.max-concurrent=%d)", cap(u.probeSlots)), http.StatusTooManyRequests)
		return
	}
	q := r.URL.Query()
	t, m, status, err := u.probeTarget(cfg, q)
	if err != nil {
		http.Error(w, err.Error(), status)
		return
	}
	timeout := probeTimeout(time.Duration(t.Timeout), r.Header)
	client, err := prober.NewClient(t, time.Duration(cfg.Global.KeepAliveTimeout))
	if err != nil {
		http.Error(w, "building the HTTP client: "+err.Error(), http.StatusInternalServerError)
		return
	}
	defer client.CloseIdleConnections()

	var (
		mu    sync.Mutex
		lines []string
	)
	id := prober.NewProbeID()
	traceLog := log.NewLogfmtLogger(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		lines = append(lines, strings.TrimRight(string(p), "\n"))
		mu.Unlock()
		return len(p), nil
	}))
	traceLog = log.With(traceLog, "ts", log.DefaultTimestampUTC)
	debugLog := log.With(u.logger, "probe_id", id, "target", t.Name, "module", m.Name)
	trace := func(msg string, kv ...any) {
		_ = traceLog.Log(append([]any{"msg", msg}, kv...)...)
		_ = level.Debug(debugLog).Log(append([]any{"msg", "on-demand probe: " + msg}, kv...)...)
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	trace("beginning probe", "target", t.Name, "module", m.Name, "timeout", timeout)
	res := prober.RunWithOptions(ctx, client, t, m, id, u.o.UserAgent, prober.RunOptions{Trace: trace})
	cancel()
	end := time.Now()
	if r.Context().Err() != nil {
		// The caller left: the probe was cut by us, not failed by the
		// target, and must not push real failures out of the history.
		level.Debug(debugLog).Log("msg", "on-demand probe abandoned by its caller", "err", r.Context().Err())
		return
	}

	reg := probeRegistry(res, end)
	mu.Lock()
	logged := slices.Clone(lines)
	mu.Unlock()
	u.o.History.Add(res, logged, true)

	if q.Get("debug") == "true" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		details := ""
		if e, ok := u.o.History.Get(id); ok {
			details = probePhases(e)
		}
		_, _ = w.Write(debugOutput(logged, details, reg, t, m))
		return
	}
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}).ServeHTTP(w, r)
}

// probeTimeout is the target's timeout, cut to fit Prometheus' scrape
// timeout when the scrape says what it is.
func probeTimeout(target time.Duration, h http.Header) time.Duration {
	v := h.Get("X-Prometheus-Scrape-Timeout-Seconds")
	if v == "" {
		return target
	}
	secs, err := strconv.ParseFloat(v, 64)
	// !(secs > 0) also refuses NaN; a value above the target's timeout
	// (Inf, 1e300) cannot shorten it and would overflow a Duration.
	if err != nil || !(secs > 0) || secs >= target.Seconds()+scrapeTimeoutOffset.Seconds() {
		return target
	}
	scrape := time.Duration(secs * float64(time.Second))
	if scrape > scrapeTimeoutOffset {
		scrape -= scrapeTimeoutOffset
	}
	return min(target, scrape)
}

// debugOutput is the blackbox-style plain-text debug page, with the
// probe's phases as /logs shows them. Secrets are
// redacted by config.Secret's marshalling; the URL loses its query.
func debugOutput(lines []string, details string, reg prometheus.Gatherer, t *config.Target, m *config.Module) []byte {
	var b bytes.Buffer
	b.WriteString("Logs for the probe:\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n\nPhases and outcome:\n")
	b.WriteString(details)
	b.WriteString("\n\nMetrics that would have been returned:\n")
	if mfs, err := reg.Gather(); err != nil {
		fmt.Fprintf(&b, "# gathering: %v\n", err)
	} else {
		enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range mfs {
			_ = enc.Encode(mf)
		}
	}
	b.WriteString("\n\nModule configuration:\n")
	b.Write(redactedYAML(m))
	b.WriteString("\n\nTarget configuration:\n")
	tc := *t
	tc.URL = t.RedactedURL()
	b.Write(redactedYAML(&tc))
	// A server's error body or header can carry ESC sequences into the
	// phases and label values: none reaches a terminal running curl raw.
	return []byte(textfmt.Safe(b.String()))
}

func redactedYAML(v any) []byte {
	if commoncfg.MarshalSecretValue {
		return []byte("# not shown: secret marshalling is switched on\n")
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return []byte("# " + err.Error() + "\n")
	}
	return out
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
