package dashboards

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/heatmap"
)

// heatmap draws a classic histogram's buckets over time: the share of
// observations per bucket and interval (Grafana de-accumulates the le
// series of a heatmap-format query). exemplar shows the probes' exemplars
// on the cells, with their probe_id and trace_id.
func (p *panelIDs) heatmap(title, desc, unit string, w, h uint32, metric string, exemplar bool) *heatmap.PanelBuilder {
	rate := fmt.Sprintf(`rate(%s_bucket{SEL}[$__rate_interval])`, metric)
	if !isProbeSeries(metric) {
		// Each probe is counted by its own prober; the server's requests,
		// by every prober that re-exports its histogram.
		rate = serverSum("le, target, model", rate)
	}
	x := q{
		expr:     e("sum by (le) (" + rate + ")"),
		legend:   "{{le}}",
		exemplar: exemplar,
		heatmap:  true,
	}
	b := head(heatmap.NewPanelBuilder(), p.id(), title, desc, unit,
		noDataDefault, w, h).
		Calculate(false).
		Color(heatmap.NewHeatmapColorOptionsBuilder().
			Mode(heatmap.HeatmapColorModeScheme).
			Scheme("Spectral").
			Scale(heatmap.HeatmapColorScaleExponential).
			Exponent(0.5).
			Steps(64).
			Fill("dark-orange").
			Reverse(false)).
		YAxis(heatmap.NewYAxisConfigBuilder().Unit(unit).AxisPlacement(common.AxisPlacementLeft)).
		CellValues(heatmap.NewCellValuesBuilder().Unit("reqps")).
		ShowLegend().
		Tooltip(heatmap.NewHeatmapTooltipBuilder().Mode(common.TooltipDisplayModeSingle).YHistogram(true).ShowColorScale(true)).
		ExemplarsColor("rgba(255,0,255,0.7)").
		WithTarget(x.build("A"))
	if exemplar {
		b = b.OverrideByName(traceIDLabel, traceLinks())
	}
	return b
}
