package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// gpuJoinVar names the label that DCGM exporter series and a target's
// llm_prober_target_info share: set it on the target (labels: {pod: ...}
// in the llm-prober configuration) to the value DCGM reports.
func gpuJoinVar() *dashboard.CustomVariableBuilder {
	return dashboard.NewCustomVariableBuilder("gpu_join").
		Label("GPU join label").
		Description("Label shared by DCGM exporter series and llm_prober_target_info (set it with the target's labels: in the llm-prober configuration).").
		Values(dashboard.StringOrMap{String: ptr("pod,Hostname,node,instance")}).
		Current(dashboard.VariableOption{Selected: ptr(true), Text: textOpt("pod"), Value: textOpt("pod")}).
		AllowCustomValue(true)
}

// onTarget joins a DCGM expression to the selected targets.
func onTarget(dcgm string) string {
	return e(dcgm + `
* on ($gpu_join) group_left (target) max by ($gpu_join, target) (llm_prober_target_info{SEL})`)
}

func textMapping(text, color string) []dashboard.DynamicConfigValue {
	return []dashboard.DynamicConfigValue{{Id: "mappings", Value: []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
		Type:    dashboard.MappingTypeValueToText,
		Options: map[string]dashboard.ValueMappingResult{"0": {Text: ptr(text), Color: ptr(color), Index: ptr(int32(0))}},
	}}}}}
}

// gpus adds GPU utilisation and memory from DCGM exporter series, joined
// to the targets, and a panel that says what is missing when they are not.
func gpus(b *dashboardBuilder, p *panelIDs) *dashboardBuilder {
	return b.WithRow(p.row("GPUs (DCGM exporter)")).
		WithPanel(p.stat("GPU data",
			"Whether Prometheus has DCGM exporter series at all (GPUs seen), and how many of them join a selected target on the $gpu_join label. 0 GPUs: deploy NVIDIA dcgm-exporter and scrape it. 0 joined: give each target the label DCGM puts on its GPUs (e.g. labels: {pod: vllm-0} in the llm-prober configuration) and pick that label in the GPU join label variable.",
			"short", 6, 8, common.BigValueTextModeValueAndName, nil, thresholds("red", 1.0, "green"),
			q{expr: `count(DCGM_FI_DEV_GPU_UTIL) or vector(0)`, legend: "GPUs seen", instant: true},
			q{expr: `count(` + onTarget(`max by ($gpu_join, gpu, UUID) (DCGM_FI_DEV_GPU_UTIL)`) + `) or vector(0)`, legend: "GPUs joined to targets", instant: true}).
			OverrideByQuery("A", textMapping("No DCGM series in Prometheus: deploy dcgm-exporter and scrape it", "red")).
			OverrideByQuery("B", textMapping("No GPU shares the $gpu_join label with a selected target: set it in the target's labels", "orange"))).
		WithPanel(p.ts("GPU utilisation",
			"DCGM_FI_DEV_GPU_UTIL per GPU of each target (the share of time a kernel ran), joined on $gpu_join. Empty: see GPU data.",
			"percent", 9, 8, tsOpts{min: zero},
			q{expr: `max by (target, $gpu_join, gpu) (` + onTarget(`DCGM_FI_DEV_GPU_UTIL`) + `)`, legend: "{{target}} {{$gpu_join}} GPU {{gpu}}"}).
			NoValue("No DCGM series joined to the selected targets: see GPU data")).
		WithPanel(p.ts("GPU memory used",
			"Framebuffer memory in use per GPU of each target, DCGM_FI_DEV_FB_USED / (FB_USED + FB_FREE). vLLM reserves most of it for the KV cache at start-up (gpu_memory_utilization), so this is flat and high by design; KV usage is on the panels above.",
			"percentunit", 9, 8, tsOpts{min: zero, max: one},
			q{expr: `max by (target, $gpu_join, gpu) (` + onTarget(`DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)`) + `)`, legend: "{{target}} {{$gpu_join}} GPU {{gpu}}"}).
			NoValue("No DCGM series joined to the selected targets: see GPU data"))
}
