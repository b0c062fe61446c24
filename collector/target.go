package collector

import (
	"reflect"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	pconfig "github.com/prometheus/common/config"
)

// maxDefaultTimeout bounds the default scrape timeout (config.go: the
// default is min(10s, interval)).
const maxDefaultTimeout = 10 * time.Second

// targetSpec is the effective server-metrics configuration of a target:
// two equal specs mean the running scraper can be kept.
type targetSpec struct {
	name        string
	model       string
	url         string
	backend     config.Backend // "" and "auto" mean detect
	interval    time.Duration
	timeout     time.Duration
	passthrough []string
	http        pconfig.HTTPClientConfig
	keepAlive   time.Duration    // global.keep_alive_timeout, set by Apply
	capacity    *config.Capacity // a copy; nil without a knee
}

func newSpec(t *config.Target) *targetSpec {
	sm := t.ServerMetrics
	s := &targetSpec{name: t.Name, model: t.Model, backend: t.Backend}
	path := sm.Path
	if path == "" {
		path = config.DefaultMetricsPath
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	s.url = strings.TrimRight(t.URL, "/") + path
	s.interval = time.Duration(sm.Interval)
	if s.interval <= 0 {
		s.interval = time.Duration(t.Interval)
	}
	if s.interval <= 0 {
		s.interval = config.DefaultInterval
	}
	s.timeout = time.Duration(sm.Timeout)
	if s.timeout <= 0 {
		s.timeout = min(maxDefaultTimeout, s.interval)
	}
	for _, re := range sm.Passthrough {
		if re != nil {
			src := re.Source
			if src == "" && re.Regexp != nil {
				src = re.String()
			}
			s.passthrough = append(s.passthrough, src)
		}
	}
	s.http = config.ComparableHTTP(*t.ServerMetricsHTTPClientConfig())
	if t.Capacity != nil {
		cp := *t.Capacity
		s.capacity = &cp
	}
	return s
}

// staleAfter is how old the last good data may get before it is dropped
// instead of served: two missed scrapes plus one in flight.
func (s *targetSpec) staleAfter() time.Duration { return 2*s.interval + s.timeout }

func (s *targetSpec) equal(o *targetSpec) bool { return reflect.DeepEqual(s, o) }

// detects reports whether a backend name asks for detection from the
// exposition ("" or auto).
func detects(name string) bool { return name == "" || name == backend.Auto }
