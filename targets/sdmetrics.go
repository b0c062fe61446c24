package targets

import (
	"errors"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// droppedSDMetrics are families of Prometheus's discovery that we do not
// re-export: promtool check metrics refuses the first's name (it holds its
// type), and the summary prometheus_sd_refresh_duration_seconds has the
// same observations; the second would name the size cap's private copies
// of file_sd files (filecap.go), not the files.
var droppedSDMetrics = []string{"prometheus_sd_refresh_duration_histogram_seconds", "prometheus_sd_file_mtime_seconds"}

// sdRegisterer registers the discovery's collectors without the
// droppedSDMetrics families.
type sdRegisterer struct {
	prometheus.Registerer
	mu      sync.Mutex
	wrapped map[prometheus.Collector]*dropCollector
}

func newSDRegisterer(r prometheus.Registerer) *sdRegisterer {
	return &sdRegisterer{Registerer: r, wrapped: map[prometheus.Collector]*dropCollector{}}
}

func (r *sdRegisterer) Register(c prometheus.Collector) error {
	r.mu.Lock()
	w, ok := r.wrapped[c]
	if !ok {
		w = &dropCollector{c}
		r.wrapped[c] = w
	}
	r.mu.Unlock()
	err := r.Registerer.Register(w)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if d, ok := are.ExistingCollector.(*dropCollector); ok {
			are.ExistingCollector = d.Collector // what the caller registered
		}
		return are
	}
	return err
}

func (r *sdRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

func (r *sdRegisterer) Unregister(c prometheus.Collector) bool {
	r.mu.Lock()
	w, ok := r.wrapped[c]
	delete(r.wrapped, c)
	r.mu.Unlock()
	if !ok {
		return r.Registerer.Unregister(c)
	}
	return r.Registerer.Unregister(w)
}

// dropCollector is a collector without the droppedSDMetrics families.
type dropCollector struct{ prometheus.Collector }

func (d *dropCollector) Describe(ch chan<- *prometheus.Desc) {
	in := make(chan *prometheus.Desc)
	go func() { d.Collector.Describe(in); close(in) }()
	for desc := range in {
		if !dropped(desc) {
			ch <- desc
		}
	}
}

func (d *dropCollector) Collect(ch chan<- prometheus.Metric) {
	in := make(chan prometheus.Metric)
	go func() { d.Collector.Collect(in); close(in) }()
	for m := range in {
		if !dropped(m.Desc()) {
			ch <- m
		}
	}
}

// dropped reads the name from the Desc's String, the only place a Desc
// shows it.
func dropped(d *prometheus.Desc) bool {
	s := d.String()
	for _, n := range droppedSDMetrics {
		if strings.Contains(s, `fqName: "`+n+`"`) {
			return true
		}
	}
	return false
}
