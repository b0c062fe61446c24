package main

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is one scrape of the prober's own /metrics.
type sample struct {
	at         time.Duration
	rss        float64 // from /proc, the ground truth
	heap       float64
	goroutines float64
	fds        float64
	probes     float64
	failures   map[string]float64
	skipped    float64
	inFlight   float64
	counters   map[string]float64 // every llm_prober_ counter series
}

func scrape(url string, pid int, at time.Duration) (*sample, error) {
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, err
	}
	s := &sample{at: at, failures: map[string]float64{}, counters: map[string]float64{}}
	s.rss = procRSS(pid)
	s.heap = single(fams["go_memstats_heap_inuse_bytes"])
	s.goroutines = single(fams["go_goroutines"])
	s.fds = single(fams["process_open_fds"])
	s.inFlight = single(fams["llm_prober_probes_in_flight"])
	for name, f := range fams {
		if f.GetType() != dto.MetricType_COUNTER || !strings.HasPrefix(name, "llm_prober_") {
			continue
		}
		for _, m := range f.Metric {
			v := m.GetCounter().GetValue()
			s.counters[seriesKey(name, m)] = v
			switch name {
			case "llm_prober_probes_total":
				s.probes += v
			case "llm_prober_probes_skipped_total":
				s.skipped += v
			case "llm_prober_probe_failures_total":
				s.failures[label(m, "reason")] += v
			}
		}
	}
	return s, nil
}

func single(f *dto.MetricFamily) float64 {
	if f == nil || len(f.Metric) == 0 {
		return -1
	}
	m := f.Metric[0]
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	return m.GetUntyped().GetValue()
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func seriesKey(name string, m *dto.Metric) string {
	parts := make([]string, 0, len(m.Label))
	for _, l := range m.Label {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

// procRSS reads VmRSS of pid in bytes, or -1.
func procRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return -1
}

// decreased lists counter series of prev that are lower or gone in cur.
func decreased(prev, cur *sample) []string {
	var out []string
	for k, v := range prev.counters {
		if nv, ok := cur.counters[k]; !ok {
			out = append(out, k+" disappeared")
		} else if nv < v {
			out = append(out, fmt.Sprintf("%s went from %g to %g", k, v, nv))
		}
	}
	sort.Strings(out)
	return out
}
