package targets

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/discovery/targetgroup"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/logadapter"
)

// Fleet runs Prometheus's discovery manager for the config's
// target_discovery entries and derives the running config: static and
// discovered targets, deduplicated, then this shard's part of them.
type Fleet struct {
	base     log.Logger // quiet: the discovery's lines go through it (logadapter.Slog)
	logger   log.Logger // the Fleet's own lines: base, stamped
	reg      prometheus.Registerer
	shard    Shard
	onChange func()
	metrics  *metrics

	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	mgr     *discovery.Manager // started with the first entry
	groups  map[string][]*targetgroup.Group
	summary Summary
	// limited is each entry's last count of targets over its limit, to
	// log when it changes rather than at every update.
	limited map[string]int
	entries map[string]discovery.Configs // the last ApplyConfig's
	derived map[string]bool              // entries whose gauges Derive set
}

// Summary is what the last Derive found, for the status page.
type Summary struct {
	Shard   Shard
	Targets int // this shard's
	Total   int // all shards', static and discovered
	Entries []EntrySummary
}

// EntrySummary is one target_discovery entry's result.
type EntrySummary struct {
	Name    string
	Targets int // valid targets, all shards
	Dropped map[string]int
}

// NewFleet returns a Fleet for shard s; onChange is called (from the
// discovery goroutine) whenever discovered groups change, and should
// re-derive and apply the config. base is the logger that
// logadapter.Stamp stamps (it filters by level, and adds no timestamp
// nor caller): the Fleet's lines and the discovery's get them there.
func NewFleet(base log.Logger, reg prometheus.Registerer, s Shard, onChange func()) *Fleet {
	if base == nil {
		base = log.NewNopLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Every line repeats at most once a minute: Derive runs at every
	// update, and the discovery manager logs every failed read.
	q := quiet(base)
	return &Fleet{base: q, logger: logadapter.Stamp(q), reg: reg, shard: s, onChange: onChange, metrics: newMetrics(reg, s),
		ctx: ctx, cancel: cancel, groups: map[string][]*targetgroup.Group{}, limited: map[string]int{}, derived: map[string]bool{}}
}

// ApplyConfig hands the entries' *_sd_configs to the discovery manager,
// which keeps unchanged discoverers running and starts or stops the rest.
// Nothing is started (nor any prometheus_sd_* metric registered) until a
// config has an entry.
func (f *Fleet) ApplyConfig(cfg *config.Config) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mgr == nil {
		if len(cfg.TargetDiscovery) == 0 {
			return nil
		}
		if err := f.start(); err != nil {
			return err
		}
	}
	sets := map[string]discovery.Configs{}
	for _, td := range cfg.TargetDiscovery {
		sets[td.Name] = capFileSD(td.Name, td.SDConfigs, LabelSetsPerTarget*entryLimit(td), f.metrics.filesTooBig, f.base)
	}
	for name := range f.entries { // a removed entry's count goes with it
		if _, ok := sets[name]; !ok {
			f.metrics.filesTooBig.DeleteLabelValues(name)
		}
	}
	f.entries = sets
	return f.mgr.ApplyConfig(sets)
}

func (f *Fleet) start() error {
	reg := f.reg
	if reg != nil {
		reg = newSDRegisterer(reg)
	}
	sdMetrics, err := discovery.CreateAndRegisterSDMetrics(reg)
	if err != nil {
		return err
	}
	mgr := discovery.NewManager(f.ctx, logadapter.Slog(f.base), reg, sdMetrics, discovery.HTTPClientOptions(sdClientOptions()...))
	if mgr == nil { // it logged why (its metrics could not be registered)
		return errors.New("cannot start the discovery manager")
	}
	f.mgr = mgr
	go func() { _ = f.mgr.Run() }()
	go f.receive(f.mgr.SyncCh())
	return nil
}

// receive keeps the latest groups of every entry; the manager sends them
// all each time, at most every 5 s under churn (Prometheus's throttle).
// An update equal to the last (a file_sd refresh re-reads unchanged
// files) is not applied again: deriving 60,000 targets took seconds and
// ran every refresh.
func (f *Fleet) receive(ch <-chan map[string][]*targetgroup.Group) {
	var last uint64
	for all := range ch {
		sum := groupsSum(all)
		f.mu.Lock()
		f.groups = all
		f.mu.Unlock()
		if sum == last && last != 0 {
			f.metrics.unchanged.Inc()
			continue
		}
		last = sum
		if f.onChange != nil {
			f.onChange()
		}
	}
}

// Stop stops discovery.
func (f *Fleet) Stop() { f.cancel() }

// Derive returns the config to run: cfg with its static targets and those
// discovered for its entries, names deduplicated (static first, then
// entries in file order), then kept to this shard. Every replica derives
// the same list from the same discovered data, so each target is probed by
// exactly one shard.
func (f *Fleet) Derive(cfg *config.Config) *config.Config {
	f.mu.Lock()
	groups := f.groups
	f.mu.Unlock()

	all := slices.Clone(cfg.Targets)
	seen := map[string]bool{}
	for _, t := range all {
		seen[t.Name] = true
	}
	sum := Summary{Shard: f.shard}
	// The gauges are set in place, never reset: a scrape during a long
	// Derive must still see every entry's counts and limits.
	f.forgetEntries(cfg)
	for _, td := range cfg.TargetDiscovery {
		b := Build(td, groups[td.Name])
		for _, err := range b.Errors {
			level.Warn(f.logger).Log("msg", "discovered target is invalid", "discovery", td.Name, "err", err)
		}
		n, limit := 0, entryLimit(td)
		for _, t := range b.Targets { // by name: the excess is the same on every replica
			switch {
			case seen[t.Name]:
				b.Dropped[DropDuplicate]++
				continue
			case n >= limit || len(all) >= MaxTargets:
				b.Dropped[DropLimit]++
				continue
			}
			seen[t.Name] = true
			all = append(all, t)
			n++
		}
		f.noteLimit(td.Name, b.Dropped[DropLimit], limit)
		f.metrics.discovered.WithLabelValues(td.Name).Set(float64(n))
		for _, r := range dropReasons {
			f.metrics.dropped.WithLabelValues(td.Name, r).Set(float64(b.Dropped[r]))
		}
		sum.Entries = append(sum.Entries, EntrySummary{Name: td.Name, Targets: n, Dropped: maps.Clone(b.Dropped)})
	}
	mine := f.shard.Select(all)
	f.metrics.shardTargets.Set(float64(len(mine)))
	sum.Total, sum.Targets = len(all), len(mine)
	f.mu.Lock()
	f.summary = sum
	f.mu.Unlock()
	return cfg.WithTargets(mine)
}

// Applied records that a discovery update that began at start has been
// applied (llm_prober_discovery_last_apply_*).
func (f *Fleet) Applied(start time.Time) {
	now := time.Now()
	f.metrics.applied.Set(float64(now.UnixNano()) / 1e9)
	f.metrics.applyTime.Set(now.Sub(start).Seconds())
}

// Summary returns what the last Derive found.
func (f *Fleet) Summary() Summary {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.summary
}
