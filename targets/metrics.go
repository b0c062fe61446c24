package targets

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

type metrics struct {
	shardTargets prometheus.Gauge
	discovered   *prometheus.GaugeVec
	dropped      *prometheus.GaugeVec
	applied      prometheus.Gauge
	applyTime    prometheus.Gauge
	filesTooBig  *prometheus.GaugeVec
	unchanged    prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, s Shard) *metrics {
	f := promauto.With(reg)
	return &metrics{
		shardTargets: f.NewGauge(prometheus.GaugeOpts{
			Name: "llm_prober_shard_targets",
			Help: "Targets this replica probes: its shard of the static and discovered targets.",
			ConstLabels: prometheus.Labels{
				"shard": strconv.Itoa(s.Index), "shard_count": strconv.Itoa(s.Count),
			},
		}),
		discovered: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "llm_prober_discovery_targets",
			Help: "Valid targets a target_discovery entry found, across all shards; its last good set is kept while its discovery fails (see prometheus_sd_*).",
		}, []string{"discovery"}),
		dropped: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "llm_prober_discovery_dropped_targets",
			Help: "Discovered label sets that made no target, by reason: relabel (dropped by relabel_configs), invalid (no model, bad url or labels), duplicate (a target of that name exists), limit (over the entry's max_targets or the total cap; the last by name are dropped).",
		}, []string{"discovery", "reason"}),
		filesTooBig: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "llm_prober_discovery_files_too_large",
			Help: "file_sd files of a target_discovery entry over the size cap (4 MiB) or listing more targets than 5 × its max_targets: never read past the cap; the targets of their last good version are kept.",
		}, []string{"discovery"}),
		unchanged: f.NewCounter(prometheus.CounterOpts{
			Name: "llm_prober_discovery_unchanged_updates_total",
			Help: "Discovery updates equal to the last one (a file_sd refresh of unchanged files), not applied again.",
		}),
		applied: f.NewGauge(prometheus.GaugeOpts{
			Name: "llm_prober_discovery_last_apply_timestamp_seconds",
			Help: "When a discovery update was last applied to the running probes.",
		}),
		applyTime: f.NewGauge(prometheus.GaugeOpts{
			Name: "llm_prober_discovery_last_apply_duration_seconds",
			Help: "How long the last discovery update took to apply: relabel, shard, restart the changed probes.",
		}),
	}
}
