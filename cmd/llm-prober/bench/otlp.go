package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/otelmetrics"
	"github.com/llm-prober/llm-prober/prober"
)

// otlpFlags are --otlp-metrics.*: the endpoint, else the otlp_metrics
// section of --config.file (credentials from files or ${ENV}).
type otlpFlags struct {
	Endpoint string        // --otlp-metrics.endpoint
	Interval time.Duration // --otlp-metrics.interval
}

// otlpSection is the push's config: the flags over --config.file's.
func (b *Config) otlpSection() (config.OTLPMetrics, error) {
	var c config.OTLPMetrics
	loaded := false
	if b.ConfigFile != "" && b.OTLP.Endpoint == "" {
		// A file that does not load is reported by benchTarget, as before.
		// One that loads has read the OTEL_* environment.
		if cfg, err := config.LoadFile(b.ConfigFile); err == nil {
			c, loaded = cfg.OTLPMetrics, true
		}
	}
	if b.OTLP.Endpoint != "" {
		c = config.OTLPMetrics{Endpoint: b.OTLP.Endpoint}
	}
	if !loaded { // the flag's endpoint takes the environment's resource only
		if err := c.ApplyEnv(os.Getenv); err != nil {
			return c, err
		}
	}
	if b.OTLP.Interval != 0 {
		c.Interval = model.Duration(b.OTLP.Interval)
	}
	c.ServerMetrics = new(bool) // bench's server figures are in its report
	if field, msg := config.CheckOTLPMetrics(&c); field != "" {
		return c, fmt.Errorf("--otlp-metrics.%s: %s", field, msg)
	}
	return c, nil
}

// otlpPush is a bench invocation's GenAI metrics push.
type otlpPush struct {
	m        *otelmetrics.Meter
	ep       otelmetrics.Endpoint
	mu       sync.Mutex
	failures int
	last     error
}

// startOTLP starts the push, or returns nil when none is asked for.
func (env *benchEnv) startOTLP(ctx context.Context, c config.OTLPMetrics) (*otlpPush, error) {
	if !c.Enabled() {
		return nil, nil
	}
	p := &otlpPush{}
	m, err := otelmetrics.New(c, otelmetrics.Settings{Version: env.b.Version, Report: p.report, Service: "llm-prober-bench"})
	if err != nil || m == nil {
		return nil, err
	}
	addr, port := otelmetrics.Server(env.target.URL)
	p.m, p.ep = m, otelmetrics.Endpoint{Operation: otelmetrics.Operation(config.API(env.b.API)),
		Provider: env.provider(ctx), Model: env.target.Model,
		Address: addr, Port: port, Target: env.b.Target}
	return p, nil
}

// provider is gen_ai.provider.name: the target's backend, or with auto
// the one its /metrics families show (as the daemon's collector detects
// it); unknown without server metrics or when none matches.
func (env *benchEnv) provider(ctx context.Context) string {
	p := otelmetrics.Provider(string(env.target.Backend))
	if p != otelmetrics.ProviderUnknown || !env.b.ServerMetrics {
		return p
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if s, err := collector.ScrapeSignals(ctx, env.client, env.target); err == nil && s.Backend != "" {
		return otelmetrics.Provider(s.Backend)
	}
	return p
}

func (p *otlpPush) report(err error) {
	if err == nil {
		return
	}
	p.mu.Lock()
	p.failures++
	p.last = err
	p.mu.Unlock()
}

// attach records every measured request that was sent (warm-up is left
// out, as from every bench figure; one cut off by the run's end counts,
// error.type cancelled).
func (p *otlpPush) attach(o *loadtest.Options) {
	if p == nil {
		return
	}
	prev := o.OnResult
	o.OnResult = func(rec *loadtest.Record, res *prober.Result) {
		if prev != nil {
			prev(rec, res)
		}
		if rec.Warmup || res.Start.IsZero() {
			return
		}
		p.m.Record(otelmetrics.FromResult(p.ep, res, time.Duration(rec.End-rec.Start)))
	}
}

// stop pushes what is recorded, within a minute, and says in log whether
// pushes failed (never fatal: the run's own results stand).
func (p *otlpPush) stop(env *benchEnv) {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = p.m.Shutdown(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failures > 0 {
		fmt.Fprintf(env.log, "otlp-metrics: %d push(es) failed, the last: %v\n", p.failures, p.last)
	}
}
