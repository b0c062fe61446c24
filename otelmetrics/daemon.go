package otelmetrics

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/otlphttp"
	"github.com/llm-prober/llm-prober/prober"
)

// Probes holds the daemon's Meter for the running config's otlp_metrics
// section; a reload that changes it replaces the Meter (the old one
// pushes what it has and stops). Its zero value records nothing.
type Probes struct {
	// Detect, if set, is the backend the target's server metrics showed
	// (collector.Manager.Backend): gen_ai.provider.name of a target whose
	// backend is auto, unknown until it answers.
	Detect func(target string) (string, bool)

	mu        sync.Mutex // serialises Apply and Stop
	cfg       config.OTLPMetrics
	cur       atomic.Pointer[Meter]
	endpoints atomic.Pointer[map[string]Endpoint] // by target and module
	server    *serverHistograms
	log       *otlphttp.FailureLog
}

func key(target, module string) string { return target + "\x00" + module }

// Apply starts, replaces or stops the Meter for cfg; servers is the
// collector, whose histograms are translated. Push failures are logged
// to logger on state changes.
func (p *Probes) Apply(cfg *config.Config, servers prometheus.Gatherer, version string, logger log.Logger) {
	p.mu.Lock()
	defer p.mu.Unlock()
	eps := map[string]Endpoint{}
	addrs := map[string]Endpoint{}
	for _, t := range cfg.Targets {
		addr, port := Server(t.URL)
		addrs[t.Name] = Endpoint{Provider: Provider(string(t.Backend)), Model: t.Model, Address: addr, Port: port}
		for _, name := range t.Modules {
			if m := cfg.Modules[name]; m != nil {
				eps[key(t.Name, name)] = Endpoint{Operation: Operation(m.API), Provider: Provider(string(t.Backend)),
					Model: t.Model, Address: addr, Port: port, Target: t.Name, Module: name}
			}
		}
	}
	p.endpoints.Store(&eps)
	if p.server == nil {
		p.server = &serverHistograms{starts: map[string]seriesStart{}}
	}
	p.server.setTargets(addrs)
	c := cfg.OTLPMetrics
	if reflect.DeepEqual(c, p.cfg) && (p.cur.Load() != nil || !c.Enabled()) {
		return
	}
	if p.log == nil {
		p.log = newPushLog(logger)
	}
	s := Settings{Version: version, Report: p.log.Report}
	if c.Translate() && servers != nil {
		p.server.setGatherer(servers)
		s.Server = p.server
	}
	m, err := New(c, s)
	if err != nil {
		level.Error(logger).Log("msg", "otlp_metrics: cannot start the exporter; nothing is pushed", "err", err)
		m = nil
	}
	p.cfg = c
	if old := p.cur.Swap(m); old != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = old.Shutdown(ctx)
		}()
	}
	if m != nil {
		level.Info(logger).Log("msg", "otlp_metrics: pushing GenAI metrics", "endpoint", config.RedactURL(c.Endpoint),
			"interval", c.PushInterval(), "conventions", ConventionsVersion)
	}
}

// Observe records a finished scheduled probe; it never waits on the
// network.
func (p *Probes) Observe(r *prober.Result) {
	m := p.cur.Load()
	if m == nil || r == nil {
		return
	}
	eps := p.endpoints.Load()
	if eps == nil {
		return
	}
	e, ok := (*eps)[key(r.Target, r.Module)]
	if !ok {
		return // a target of a config already replaced
	}
	if e.Provider == ProviderUnknown && p.Detect != nil {
		if b, ok := p.Detect(r.Target); ok {
			e.Provider = b
		}
	}
	var took time.Duration
	if !r.Start.IsZero() {
		took = time.Since(r.Start)
	}
	m.Record(FromResult(e, r, took))
}

// Stop pushes what is recorded and stops, within ctx.
func (p *Probes) Stop(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.cur.Swap(nil).Shutdown(ctx)
}
