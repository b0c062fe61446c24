package collector

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/httpclient"
)

// Manager runs one scraper per target with server_metrics.enabled and
// re-exports their data. It is an unchecked prometheus.Collector.
type Manager struct {
	logger log.Logger
	ctx    context.Context
	cancel context.CancelFunc
	now    func() time.Time // replaced in tests
	// phase delays a new scraper's first scrape; replaced in tests.
	phase func(interval time.Duration) time.Duration
	slots chan struct{} // caps scrapes in flight across targets

	applyMu   sync.Mutex
	keepAlive time.Duration // for the next Apply (applyMu)
	mu        sync.Mutex
	scrapers  map[string]*scraper
	stopped   bool
}

var _ prometheus.Collector = (*Manager)(nil)

// NewManager returns a Manager with no targets; call Apply to start some.
func NewManager(logger log.Logger, opts ...Option) *Manager {
	if logger == nil {
		logger = log.NewNopLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{logger: logger, ctx: ctx, cancel: cancel, now: time.Now, phase: randomPhase, scrapers: map[string]*scraper{}}
	defaultOptions(m)
	for _, o := range opts {
		o(m)
	}
	return m
}

// SetKeepAlive sets how long a scrape's connection stays open for the
// next scrape of its target (config.DefaultKeepAliveTimeout if d <= 0),
// as global.keep_alive_timeout does for probes. It applies from the next
// Apply, which rebuilds the scrapers whose keep-alive it changes.
func (m *Manager) SetKeepAlive(d time.Duration) {
	if d <= 0 {
		d = config.DefaultKeepAliveTimeout
	}
	m.applyMu.Lock()
	m.keepAlive = d
	m.applyMu.Unlock()
}

// Apply makes the running scrapers match targets: new or changed targets
// get a fresh scraper (a changed one keeps its counters and last data),
// unchanged ones keep running untouched, and removed ones stop and lose
// their series.
func (m *Manager) Apply(targets []*config.Target) {
	// Serialised so that a changed target's old scraper has exited before
	// its counters are copied into the new one.
	m.applyMu.Lock()
	defer m.applyMu.Unlock()
	want := map[string]*targetSpec{}
	for _, t := range targets {
		if t == nil || !t.ServerMetrics.Enabled {
			continue
		}
		if _, dup := want[t.Name]; dup {
			level.Error(m.logger).Log("msg", "Duplicate target name; server metrics scraped for the first only", "target", t.Name)
			continue
		}
		spec := newSpec(t)
		spec.keepAlive = m.keepAlive
		want[t.Name] = spec
	}

	// Clients of the running scrapers are offered first, so that an
	// unchanged setting keeps its client and open connections.
	clients := httpclient.NewSet(nil)
	var stopped []*scraper
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	for name, s := range m.scrapers {
		clients.Offer(s.spec.http, s.spec.keepAlive, s.client)
		// A target whose client failed to build is retried on every
		// Apply, changed or not: its CA file may be there now.
		if spec, ok := want[name]; ok && s.spec.equal(spec) && s.clientErr == nil {
			_, _ = clients.Get(spec.http, spec.keepAlive) // still in use
			delete(want, name)                            // unchanged: keep it running
			continue
		}
		s.stop()
		stopped = append(stopped, s)
		delete(m.scrapers, name)
	}
	m.mu.Unlock()
	wait(stopped)

	old := make(map[string]*scraper, len(stopped))
	for _, s := range stopped {
		old[s.spec.name] = s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	for name, spec := range want {
		client, err := clients.Get(spec.http, spec.keepAlive)
		if err != nil {
			// Scraped anyway: its scrapes fail visibly (client_config)
			// until a reload repairs it.
			err = fmt.Errorf("building HTTP client: %w", err)
			level.Error(m.logger).Log("msg", "Cannot build HTTP client; server metrics scrapes fail until a reload", "target", name, "err", err)
		}
		s := newScraper(spec, client, err, m.slots, m.logger)
		s.clock = m.now
		if o := old[name]; o != nil {
			s.inherit(o)
		}
		m.scrapers[name] = s
		s.start(m.ctx, m.phase(spec.interval))
	}
	clients.CloseUnused()
}

// Stop stops every scraper and waits for them; Apply does nothing after.
func (m *Manager) Stop() {
	m.mu.Lock()
	m.stopped = true
	m.cancel()
	all := make([]*scraper, 0, len(m.scrapers))
	for _, s := range m.scrapers {
		all = append(all, s)
	}
	m.scrapers = map[string]*scraper{}
	m.mu.Unlock()
	wait(all)
}

// wait blocks until the scrapers' goroutines exit.
func wait(ss []*scraper) {
	for _, s := range ss {
		<-s.done
	}
}

// Describe sends nothing: the Manager is an unchecked collector because
// its families depend on what the targets expose.
func (m *Manager) Describe(chan<- *prometheus.Desc) {}

// Collect sends every target's health and fresh data. It only reads
// snapshots, so it returns at once whatever the targets are doing.
func (m *Manager) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	list := make([]*scraper, 0, len(m.scrapers))
	for _, s := range m.scrapers {
		list = append(list, s)
	}
	m.mu.Unlock()
	// Sorted so that passthrough clashes are resolved the same way each time.
	sort.Slice(list, func(i, j int) bool { return list[i].spec.name < list[j].spec.name })
	now := m.now()
	g := newPTGuard()
	for _, s := range list {
		s.collect(ch, now, g)
	}
}
