package config

import (
	"time"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/capacity/kneefile"
)

// Capacity gives a target the knee its server was measured at, so that the
// prober can export the headroom left under it (collector/capacity.go):
// 1 − the server's own served request rate ÷ the knee. The knee holds only
// for the workload it was measured with.
type Capacity struct {
	// KneeRequestsPerSecond is the knee as a number; KneeFile is a
	// `llm-prober bench --sweep --output-json` result to take it from.
	// Exactly one is set.
	KneeRequestsPerSecond float64 `yaml:"knee_requests_per_second,omitempty"`
	KneeFile              string  `yaml:"knee_file,omitempty"`
	// MinHeadroomRatio is the share of the knee that must stay free: the
	// headroom alert fires below it. 0 alerts only past the knee.
	MinHeadroomRatio float64 `yaml:"min_headroom_ratio"`
	// RateWindow is the window of the served rate; it must hold at least
	// MinRateWindowScrapes scrapes of the server's metrics.
	RateWindow model.Duration `yaml:"rate_window"`

	// Knee is the knee in use (req/s), from the number or the file, and
	// Source says which ("config" or "file"). Workload and GoodputPercent
	// describe the sweep the file recorded (empty and 0 for a number).
	Knee           float64 `yaml:"-"`
	Source         string  `yaml:"-"`
	Workload       string  `yaml:"-"`
	GoodputPercent float64 `yaml:"-"`
}

// Capacity defaults and bounds.
const (
	DefaultMinHeadroomRatio = 0.2
	DefaultRateWindow       = 5 * time.Minute
	// MinRateWindowScrapes is how many server-metrics intervals the rate
	// window spans at least: fewer, and one late scrape swings the rate.
	MinRateWindowScrapes = 4
	// MaxRateWindow bounds the scrapes a target keeps for its rate; a
	// longer trend is PromQL's job over the exported rate.
	MaxRateWindow = time.Hour
	// Where the knee came from (llm_prober_capacity_knee_info's source).
	KneeSourceConfig = "config"
	KneeSourceFile   = "file"
)

// capacity checks a target's capacity block, reading its knee file; sm is
// the target's checked server_metrics (the served rate comes from them).
func (c *checker) capacity(path string, cp *Capacity, sm *ServerMetrics) error {
	if cp == nil {
		return nil
	}
	n := len(c.errs)
	num, file := c.set(path+".knee_requests_per_second"), c.set(path+".knee_file")
	switch {
	case num && file:
		c.errf(path+".knee_file", "set knee_requests_per_second or knee_file, not both")
	case !num && !file:
		c.errf(path, "capacity needs knee_requests_per_second or knee_file (a bench --sweep --output-json result)")
	case num && !(cp.KneeRequestsPerSecond >= kneefile.MinRate && cp.KneeRequestsPerSecond <= kneefile.MaxRate):
		c.errf(path+".knee_requests_per_second", "knee_requests_per_second must be a rate between %g and %g req/s, got %g", kneefile.MinRate, kneefile.MaxRate, cp.KneeRequestsPerSecond)
	case num:
		cp.Knee, cp.Source = cp.KneeRequestsPerSecond, KneeSourceConfig
	default:
		if c.knees == nil {
			c.knees = kneefile.Cache{}
		}
		k, err := c.knees.Read(cp.KneeFile)
		if err != nil {
			c.errf(path+".knee_file", "%v", err)
		} else {
			cp.Knee, cp.Source, cp.Workload, cp.GoodputPercent = k.Rate, KneeSourceFile, k.Workload, k.GoodputPercent
		}
	}
	if !c.set(path + ".min_headroom_ratio") {
		cp.MinHeadroomRatio = DefaultMinHeadroomRatio
	} else if !(cp.MinHeadroomRatio >= 0 && cp.MinHeadroomRatio < 1) {
		c.errf(path+".min_headroom_ratio", "min_headroom_ratio must be at least 0 and less than 1, got %g", cp.MinHeadroomRatio)
	}
	if !sm.Enabled {
		c.errf(path, "capacity needs server_metrics.enabled: true (headroom is the server's own served request rate, from its /metrics)")
	}
	least := MinRateWindowScrapes * sm.Interval
	if !c.set(path + ".rate_window") {
		cp.RateWindow = max(model.Duration(DefaultRateWindow), least)
	}
	if cp.RateWindow < least || cp.RateWindow > model.Duration(MaxRateWindow) {
		c.errf(path+".rate_window", "rate_window %s must hold at least %d server_metrics intervals (%s) and be at most %s", cp.RateWindow, MinRateWindowScrapes, least, model.Duration(MaxRateWindow))
	}
	if len(c.errs) > n {
		return c.errs[n]
	}
	return nil
}
