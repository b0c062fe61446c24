package prober

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/config"
)

// TargetInfo exports llm_prober_target_info, the one place where the
// user's static target labels appear (join them with group_left), so the
// probe series themselves stay bounded.
type TargetInfo struct {
	config func() *config.Config
}

// NewTargetInfo reads the current config on every collection.
func NewTargetInfo(current func() *config.Config) *TargetInfo {
	return &TargetInfo{config: current}
}

// Describe sends nothing: the label names follow the config (unchecked).
func (ti *TargetInfo) Describe(chan<- *prometheus.Desc) {}

// Collect emits one series per target.
func (ti *TargetInfo) Collect(ch chan<- prometheus.Metric) {
	cfg := ti.config()
	if cfg == nil {
		return
	}
	extra := cfg.LabelKeys()
	names := append([]string{"target", "model", "url", "backend"}, extra...)
	loc := cfg.Global.Location // as on the probe series, for joins
	if loc != "" {
		names = append(names, "location")
	}
	desc := prometheus.NewDesc("llm_prober_target_info",
		"Static facts about a configured target, value 1; user labels from the target's labels: block.", names, nil)
	for _, t := range cfg.Targets {
		values := []string{t.Name, t.Model, t.RedactedURL(), string(t.Backend)}
		for _, k := range extra {
			values = append(values, string(t.Labels[model.LabelName(k)]))
		}
		if loc != "" {
			values = append(values, loc)
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, 1, values...)
	}
}
