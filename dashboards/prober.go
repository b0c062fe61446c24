package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
)

// noDataDefault is every panel's text when it has none of its own:
// Grafana's bare "No data" left an on-call guessing whether the prober
// was dead (issue 33: 48 of 71 panels said nothing after a kill).
const noDataDefault = "No data for the selection in this time range: if the Prober panel shows DOWN, the prober is not scraped and its series end with it"

// proberInstances keeps the up series of llm-prober instances: those
// that exposed llm_prober_build_info in the last day (LLMProberDown's set).
const proberInstances = `up{JI}
and on (cluster, job, instance)
group by (cluster, job, instance) (last_over_time(llm_prober_build_info{JI}[1d]))`

// proberStat shows whether Prometheus scrapes each selected prober (up),
// so that a dead prober reads DOWN instead of leaving empty panels.
func (p *panelIDs) proberStat(w, h uint32) *stat.PanelBuilder {
	upMapping := []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
		Type: dashboard.MappingTypeValueToText,
		Options: map[string]dashboard.ValueMappingResult{
			"0": {Text: ptr("DOWN"), Color: ptr("red"), Index: ptr(int32(0))},
			"1": {Text: ptr("UP"), Color: ptr("green"), Index: ptr(int32(1))},
		},
	}}}
	return p.stat("Prober",
		"Whether Prometheus scrapes each selected llm-prober instance (up, for the instances that exposed llm_prober_build_info in the last day, as LLMProberDown). DOWN: the prober is dead or unreachable, its probe and server series end with it and the other panels go empty; Time since last probe keeps growing from its last probes.",
		"none", w, h, common.BigValueTextModeValueAndName, upMapping, thresholds("red", 1.0, "green"),
		q{expr: e(proberInstances), legend: "{{instance}}", instant: true}).
		NoValue("No llm-prober instance of the selected job and instance was scraped in the last day")
}

// sinceLastProbe is the age of each module's last probe. While its
// prober is not scraped (up == 0, or its up series gone) the last known
// timestamp is kept, so the age grows (and turns red) instead of the
// tile vanishing with the staled series.
const sinceLastProbe = `time() - max by (location, target, model, module) (
  llm_prober_last_probe_timestamp_seconds{SEL}
  or
  (
    last_over_time(llm_prober_last_probe_timestamp_seconds{SEL}[1d])
    unless on (cluster, job, instance) (up{JI} == 1)
  )
)`
