package collector

import (
	"context"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
)

// MaxNormalisedSeries caps normalised series per target; with the engine
// and reason labels bounded by the server this is only a safety net.
const MaxNormalisedSeries = 5000

// backendUnknown labels a target whose exposition matched no mapping.
const backendUnknown = "unknown"

// counters outlive a scraper when its target's config changes, so that
// rate() over them does not see a reset.
type counters struct {
	scrapes  float64
	failures map[string]float64
	dropped  [numDropReasons]float64
}

func newCounters() *counters {
	c := &counters{failures: make(map[string]float64, len(allReasons))}
	for _, r := range allReasons {
		c.failures[r] = 0 // pre-created so rate() and absent() work from the start
	}
	return c
}

// clone copies c; the caller holds its scraper's mu.
func (c *counters) clone() *counters {
	n := &counters{scrapes: c.scrapes, failures: make(map[string]float64, len(c.failures)), dropped: c.dropped}
	for r, v := range c.failures {
		n.failures[r] = v
	}
	return n
}

// snapshot is the last successfully scraped data of a target.
type snapshot struct {
	at        time.Time
	sent      time.Time // when its request went out (restart.go)
	backend   string
	samples   []sample
	pt        []ptFamily
	ptDropped int
	badHist   int // histograms dropped by validHistogram
	nonFinite int // gauges, counters and untyped series of NaN or ±Inf
}

// scraper fetches one target's exposition on its own ticker.
type scraper struct {
	spec      *targetSpec
	client    *http.Client  // shared with targets of the same client settings
	clientErr error         // the client could not be built: every scrape fails
	slots     chan struct{} // the Manager's cap on scrapes in flight
	res       []*regexp.Regexp
	filter    *familyFilter
	logger    log.Logger
	cancel    context.CancelFunc
	done      chan struct{}

	mu         sync.Mutex
	ctr        *counters
	ran        bool // at least one scrape finished
	lastOK     bool
	lastReason string
	lastDur    time.Duration
	data       *snapshot
	// dropsCounted is what ctr.dropped already holds of data's drops.
	dropsCounted drops
	// restart tells restarts from other replicas (restart.go).
	restart restartState
	// served follows the served request rate, for capacity (capacity.go),
	// on the Manager's clock (replaced in tests).
	served servedRate
	clock  func() time.Time
}

func newScraper(spec *targetSpec, client *http.Client, clientErr error, slots chan struct{}, logger log.Logger) *scraper {
	s := &scraper{spec: spec, client: client, clientErr: clientErr, slots: slots,
		ctr: newCounters(), logger: log.With(logger, "target", spec.name), done: make(chan struct{}), clock: time.Now}
	for _, src := range spec.passthrough {
		re, err := anchor(src)
		if err != nil {
			level.Error(s.logger).Log("msg", "Ignoring invalid passthrough regex", "regex", src, "err", err)
			continue
		}
		s.res = append(s.res, re)
	}
	s.filter = specFilter(spec, s.res)
	return s
}

// inherit takes over the counters and last data of o, the scraper s
// replaces after a config change, so that the change neither resets
// rate() nor blanks the target's series until s first scrapes at its
// phase (the data still goes stale as any other). o has exited, but a
// Collect may still be counting its drops, hence the lock.
func (s *scraper) inherit(o *scraper) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s.ctr = o.ctr.clone()
	s.ran, s.lastOK, s.lastReason, s.lastDur = o.ran, o.lastOK, o.lastReason, o.lastDur
	s.data, s.dropsCounted, s.restart, s.served = o.data, o.dropsCounted, o.restart, o.served
}

// start runs the scraper's first scrape after phase, then every interval.
func (s *scraper) start(parent context.Context, phase time.Duration) {
	ctx, cancel := context.WithCancel(parent)
	s.cancel = cancel
	if s.clientErr != nil {
		phase = 0 // nothing to spread: report the failure at once
	}
	go s.run(ctx, phase)
}

// stop cancels the scraper; wait for done outside any lock.
func (s *scraper) stop() { s.cancel() }

func (s *scraper) run(ctx context.Context, phase time.Duration) {
	defer close(s.done)
	if phase > 0 {
		t := time.NewTimer(phase)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	t := time.NewTicker(s.spec.interval)
	defer t.Stop()
	for {
		s.scrapeOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *scraper) scrapeOnce(ctx context.Context) {
	var (
		body []byte
		serr *scrapeError
	)
	if s.clientErr != nil {
		serr = &scrapeError{reasonClientConfig, s.clientErr}
	} else if !acquire(ctx, s.slots) {
		return // stopping
	}
	start := time.Now() // after the wait for a slot: that is not the target's time
	if serr == nil {
		body, serr = fetch(ctx, s.client, s.spec.url, s.spec.timeout, MaxBodyBytes, s.filter, MaxParsedSeries)
		<-s.slots
	}
	var snap *snapshot
	if serr == nil {
		snap, serr = s.process(body)
	}
	if ctx.Err() != nil {
		return // stopping: neither a success nor a failure
	}
	dur := time.Since(start)

	s.mu.Lock()
	restarted := false
	wasOK, wasReason, ran := s.lastOK, s.lastReason, s.ran
	s.ctr.scrapes++
	s.ran, s.lastDur = true, dur
	if serr != nil {
		s.ctr.failures[serr.reason]++
		s.lastOK, s.lastReason = false, serr.reason
	} else {
		snap.at, snap.sent = time.Now(), start
		replicas := s.restart.replicas
		restarted = s.noteRestart(snap) // before data is replaced
		if cp := s.spec.capacity; cp != nil {
			s.served.observe(s.clock(), snap.backend, snap.samples, time.Duration(cp.RateWindow), s.restart.replicas != replicas)
		}
		s.lastOK, s.lastReason, s.data, s.dropsCounted = true, "", snap, drops{}
	}
	s.mu.Unlock()
	s.logRestart(restarted)

	switch {
	case serr != nil && (wasOK || !ran || wasReason != serr.reason):
		level.Warn(s.logger).Log("msg", "Server metrics scrape failed", "url", s.spec.url, "reason", serr.reason, "err", serr.err)
	case serr != nil:
		level.Debug(s.logger).Log("msg", "Server metrics scrape failed", "url", s.spec.url, "reason", serr.reason, "err", serr.err)
	case ran && !wasOK:
		level.Info(s.logger).Log("msg", "Server metrics scrape recovered", "url", s.spec.url)
	}
}

// process turns a (filtered) body into a snapshot; the raw families are dropped
// afterwards so memory is bounded by what we re-export.
func (s *scraper) process(body []byte) (*snapshot, *scrapeError) {
	fams, badHist, nonFinite, serr := parse(body)
	if serr != nil {
		return nil, serr
	}
	var m *Mapping
	backend := string(s.spec.backend)
	if detects(string(s.spec.backend)) {
		names := make([]string, 0, len(fams))
		for n := range fams {
			names = append(names, n)
		}
		m, backend = detectBackend(names), backendUnknown
		if m != nil {
			backend = string(m.Backend)
		}
	} else {
		m = registry[s.spec.backend] // nil for openai: health and passthrough only
	}
	snap := &snapshot{backend: backend, badHist: badHist, nonFinite: nonFinite}
	if m != nil {
		var conflicts int
		snap.samples, conflicts = normalize(m, fams, s.spec.model)
		if conflicts > 0 {
			level.Debug(s.logger).Log("msg", "Dropped series whose histogram buckets differ from their group", "count", conflicts)
		}
		if len(snap.samples) > MaxNormalisedSeries {
			level.Warn(s.logger).Log("msg", "Too many normalised series; truncating", "count", len(snap.samples), "limit", MaxNormalisedSeries)
			snap.samples = snap.samples[:MaxNormalisedSeries]
		}
	}
	snap.pt, snap.ptDropped = selectPassthrough(fams, s.res, MaxPassthroughSeries)
	return snap, nil
}
