// Package dashboards builds the llm-prober Grafana dashboards as Go code
// (grafana-foundation-sdk). The JSON files next to this file are generated
// from it, and so is the panel reference in docs/dashboards.md; regenerate
// them with `go generate ./...` in this directory (dashboards_test.go
// fails when they are stale).
package dashboards

//go:generate go run ./cmd/generate -out . -rules-out ../alerts -docs ../docs/dashboards.md
//go:generate go run ./cmd/generate -out ../deploy/kubernetes/components/grafana-dashboards
//go:generate go run ./cmd/generate -out ../deploy/helm/llm-prober/files/dashboards -rules-out ../deploy/helm/llm-prober/files/rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"github.com/llm-prober/llm-prober/dashboards/rules"
)

// File is one generated dashboard.
type File struct {
	Name      string // file name, e.g. llm-prober-slo.json
	Dashboard grafanaDashboard
}

// AllWith builds every dashboard; the SLO dashboard reads its period and
// burn factors from the rule options, so it shows what the alerts use.
func AllWith(c rules.Config) ([]File, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	builders := []struct {
		name string
		b    *dashboardBuilder
	}{
		{"llm-prober-slo.json", sloOverview(c)},
		{"llm-prober-capacity.json", capacity()},
		{"llm-prober-target.json", targetDrillDown()},
	}
	var out []File
	for _, b := range builders {
		d, err := b.b.Build()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name, err)
		}
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("%s: validate: %w", b.name, err)
		}
		out = append(out, File{Name: b.name, Dashboard: d})
	}
	return out, nil
}

// Render returns the JSON for every dashboard, keyed by file name.
func Render() (map[string][]byte, error) { return RenderWith(rules.Default()) }

// RenderWith is Render for the given rule options.
func RenderWith(c rules.Config) (map[string][]byte, error) {
	files, err := AllWith(c)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, f := range files {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f.Dashboard); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		out[f.Name] = buf.Bytes()
	}
	return out, nil
}

// ---- shared pieces ----

// sel is the label matcher every probe/server query carries.
const sel = `cluster=~"$cluster", job=~"$job", instance=~"$instance", target=~"$target", model=~"$model"`

// selJI is for process-wide series that have no target/model labels.
const selJI = `cluster=~"$cluster", job=~"$job", instance=~"$instance"`

// selLocation is added to sel on the probe series (and on
// llm_prober_target_info and the probe SLIs recorded from them), which
// carry the prober's location (--probe.location) when it has one. The
// server series llm-prober re-exports carry none: they are never
// filtered on it (withLocation).
const selLocation = `location=~"$location"`

// probeSelRe finds a series selector that starts with sel.
var probeSelRe = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{` + regexp.QuoteMeta(sel))

// isProbeSeries reports whether a metric (or recorded series) carries the
// location label: every llm_prober_* family but the server ones
// (llm_prober_server_*), the capacity ones computed from them
// (llm_prober_capacity_*) and the target_model:* series recorded from them.
func isProbeSeries(name string) bool {
	if parts := strings.Split(name, ":"); len(parts) == 3 {
		name = parts[1] // level:metric:operations
	}
	return strings.HasPrefix(name, "llm_prober_") && !strings.HasPrefix(name, "llm_prober_server_") && !strings.HasPrefix(name, "llm_prober_capacity_")
}

// withLocation adds the location matcher to every probe-series selector
// of expr that carries sel; server selectors are left alone, so that a
// selected location never empties the server panels.
func withLocation(expr string) string {
	return probeSelRe.ReplaceAllStringFunc(expr, func(m string) string {
		if !isProbeSeries(m[:strings.Index(m, "{")]) {
			return m
		}
		return m + ", " + selLocation
	})
}

// serverSum sums a server-series expression (llm_prober_server_*) by the
// labels by, counting each server once. Every prober (one per location,
// HA replicas) scrapes the same server and re-exports its series under its
// own instance, so a plain sum over instances counts the server once per
// prober. serverSum sums within each prober's view (over the server's
// engines, backends, ...), then keeps one view: the largest, as the views
// differ only by scrape timing. Ratios and quantiles of sums need none of
// this: the copies cancel out.
func serverSum(by, expr string) string {
	return "max by (" + by + ") (sum by (" + by + ", cluster, job, instance) (" + expr + "))"
}

func ptr[T any](v T) *T { return &v }

func dsRef() common.DataSourceRef {
	return common.DataSourceRef{Type: ptr("prometheus"), Uid: ptr("${datasource}")}
}

// q is one Prometheus query of a panel.
type q struct {
	expr     string
	legend   string
	exemplar bool
	instant  bool
	table    bool // table format (for table panels)
	heatmap  bool // heatmap format: Grafana turns cumulative le buckets into cells
}

func (x q) build(refID string) *prometheus.DataqueryBuilder {
	b := prometheus.NewDataqueryBuilder().
		Datasource(dsRef()).
		RefId(refID).
		Expr(withLocation(strings.TrimSpace(x.expr))).
		LegendFormat(x.legend)
	if x.instant {
		b = b.Instant()
	} else {
		b = b.Range()
	}
	switch {
	case x.table:
		b = b.Format(prometheus.PromQueryFormatTable)
	case x.heatmap:
		b = b.Format(prometheus.PromQueryFormatHeatmap)
	default:
		b = b.Format(prometheus.PromQueryFormatTimeSeries)
	}
	if x.exemplar {
		b = b.Exemplar(true)
	}
	return b
}

func refID(i int) string { return string(rune('A' + i)) }

// panelIDs numbers panels per dashboard, in build order.
type panelIDs struct{ next uint32 }

func (p *panelIDs) id() uint32 { p.next++; return p.next }

type tsOpts struct {
	min, max *float64
	stacked  bool
	bars     bool
}

func (p *panelIDs) ts(title, desc, unit string, w, h uint32, o tsOpts, qs ...q) *timeseries.PanelBuilder {
	b := head(timeseries.NewPanelBuilder(), p.id(), title, desc, unit,
		noDataDefault, w, h).
		FillOpacity(10).
		ShowPoints(common.VisibilityModeNever).
		Legend(common.NewVizLegendOptionsBuilder().
			DisplayMode(common.LegendDisplayModeTable).
			Placement(common.LegendPlacementBottom).
			ShowLegend(true).
			Calcs([]string{"mean", "max", "lastNotNull"})).
		Tooltip(common.NewVizTooltipOptionsBuilder().
			Mode(common.TooltipDisplayModeMulti).
			Sort(common.SortOrderDescending))
	if o.min != nil {
		b = b.Min(*o.min)
	}
	if o.max != nil {
		b = b.Max(*o.max)
	}
	if o.stacked {
		b = b.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))
	}
	if o.bars {
		b = b.DrawStyle(common.GraphDrawStyleBars).FillOpacity(60)
	}
	for i, x := range qs {
		b = b.WithTarget(x.build(refID(i)))
	}
	if anyExemplar(qs) {
		b = b.OverrideByName(traceIDLabel, traceLinks())
	}
	return b
}

func (p *panelIDs) stat(title, desc, unit string, w, h uint32, textMode common.BigValueTextMode, mappings []dashboard.ValueMapping, thresholds *dashboard.ThresholdsConfigBuilder, qs ...q) *stat.PanelBuilder {
	b := head(stat.NewPanelBuilder(), p.id(), title, desc, unit,
		noDataDefault, w, h).
		TextMode(textMode).
		ColorMode(common.BigValueColorModeBackground).
		GraphMode(common.BigValueGraphModeNone).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}).Values(false))
	if mappings != nil {
		b = b.Mappings(mappings)
	}
	if thresholds != nil {
		b = b.Thresholds(thresholds)
	}
	for i, x := range qs {
		b = b.WithTarget(x.build(refID(i)))
	}
	return b
}

func (p *panelIDs) table(title, desc, unit string, w, h uint32, qs ...q) *table.PanelBuilder {
	b := head(table.NewPanelBuilder(), p.id(), title, desc, unit,
		noDataDefault, w, h).
		Footer(common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{"sum"})).
		WithTransformation(dashboard.DataTransformerConfig{
			Id: "organize",
			Options: map[string]any{
				"excludeByName": map[string]any{"Time": true},
			},
		})
	for i, x := range qs {
		b = b.WithTarget(x.build(refID(i)))
	}
	return b
}

// row is a row header; rows share the panels' id sequence so that every
// id of a dashboard is unique.
func (p *panelIDs) row(title string) *dashboard.RowBuilder {
	return dashboard.NewRowBuilder(title).Id(p.id()).Collapsed(false)
}

func thresholds(base string, steps ...any) *dashboard.ThresholdsConfigBuilder {
	s := []dashboard.Threshold{{Value: nil, Color: base}}
	for i := 0; i+1 < len(steps); i += 2 {
		v := steps[i].(float64)
		s = append(s, dashboard.Threshold{Value: &v, Color: steps[i+1].(string)})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(s)
}

func textOpt(s string) dashboard.StringOrArrayOfString {
	return dashboard.StringOrArrayOfString{String: ptr(s)}
}

// labelVar is a query variable over llm_prober_target_info.
func labelVar(name, label, desc, match string) *dashboard.QueryVariableBuilder {
	query := fmt.Sprintf("label_values(llm_prober_target_info%s, %s)", match, name)
	return dashboard.NewQueryVariableBuilder(name).
		Label(label).
		Description(desc).
		Datasource(dsRef()).
		Query(dashboard.StringOrMap{String: ptr(query)}).
		Definition(query).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc).
		Multi(true).
		IncludeAll(true).
		// .+ as Grafana's own mixins do: All never matches a missing label.
		AllValue(".+").
		Current(dashboard.VariableOption{Selected: ptr(true), Text: textOpt("All"), Value: dashboard.StringOrArrayOfString{ArrayOfString: []string{"$__all"}}})
}

// clusterVar selects the cluster label the rules keep (rules.Config's
// ClusterLabel, "cluster" by default). Its All is .*, as location's: a
// Prometheus without the label keeps every series.
func clusterVar() *dashboard.QueryVariableBuilder {
	return labelVar("cluster", "Cluster",
		"The cluster label of the llm-prober series (one Prometheus, Thanos or Mimir holding several clusters); All also keeps series without it. Alerts' dashboard links select it.",
		"").
		AllValue(".*")
}

// locationVar selects the probers' locations. Its All is .*, the one
// exception to .+: probers without --probe.location export no location
// label, and All must keep their series (a query variable that finds no
// value at all still offers All).
func locationVar() *dashboard.QueryVariableBuilder {
	return labelVar("location", "Location",
		"Where the probers run (--probe.location or global.location): compare the same targets probed from several regions or clusters. Filters the probe series only; the server series carry no location (pick an instance for one prober's view of the server).",
		`{cluster=~"$cluster", job=~"$job"}`).
		AllValue(".*")
}

// base returns a dashboard with the common settings and the datasource,
// job, instance, target and model variables.
func base(uid, title, desc string, tags ...string) *dashboardBuilder {
	return newDashboardBuilder(title).
		Uid(uid).
		Description(desc).
		Tags(append([]string{"llm-prober", "llm"}, tags...)).
		Editable().
		Refresh("30s").
		Time("now-3h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Link(dashboard.NewDashboardLinkBuilder("llm-prober dashboards").
			Type(dashboard.DashboardLinkTypeDashboards).
			Tags([]string{"llm-prober"}).
			AsDropdown(true).
			IncludeVars(true).
			KeepTime(true).
			Icon("external link").
			Tooltip("").
			Url("").
			TargetBlank(false)).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").
			Label("Data source").
			Description("Prometheus data source that scrapes llm-prober.").
			Type("prometheus").
			Current(dashboard.VariableOption{Selected: ptr(true), Text: textOpt("default"), Value: textOpt("default")})).
		WithVariable(tracingVar()).
		WithVariable(clusterVar()).
		WithVariable(labelVar("job", "Job", "Prometheus job(s) scraping llm-prober.", `{cluster=~"$cluster"}`)).
		WithVariable(locationVar()).
		WithVariable(labelVar("instance", "Instance", "llm-prober instance(s).", `{cluster=~"$cluster", job=~"$job", location=~"$location"}`)).
		WithVariable(labelVar("target", "Target", "Probed inference endpoint(s), as named in the llm-prober configuration.", `{cluster=~"$cluster", job=~"$job", instance=~"$instance", location=~"$location"}`)).
		WithVariable(labelVar("model", "Model", "Model name(s) served by the selected targets.", `{cluster=~"$cluster", job=~"$job", instance=~"$instance", location=~"$location", target=~"$target"}`))
}

// quantiles returns p50/p90/p99 queries over a probe histogram, split by
// location as well as by.
func quantiles(metric, by string, exemplar bool) []q {
	var out []q
	for _, p := range [][2]string{{"0.5", "p50"}, {"0.9", "p90"}, {"0.99", "p99"}} {
		out = append(out, q{
			expr:     quantileExpr(p[0], by, metric),
			legend:   p[1] + " " + legendFor(by) + " {{location}}",
			exemplar: exemplar,
		})
	}
	return out
}

// quantileExpr is the p-quantile of a histogram from its native buckets
// where Prometheus ingests them (within 2 % of the exact quantile, see
// docs/metrics-contract.md), else from its classic ones: both halves give
// the same label set, so `or` keeps the native result wherever it exists.
// metric is a probe histogram: the quantile is per location too.
func quantileExpr(p, by, metric string) string {
	by = "location, " + by
	return fmt.Sprintf(`histogram_quantile(%[1]s, sum by (%[2]s) (rate(%[3]s{%[4]s}[$__rate_interval])))`+
		` or histogram_quantile(%[1]s, sum by (le, %[2]s) (rate(%[3]s_bucket{%[4]s}[$__rate_interval])))`, p, by, metric, sel)
}

var (
	zero = ptr(0.0)
	one  = ptr(1.0)
)

// legendFor turns "target, model" into "{{target}} {{model}}".
func legendFor(by string) string {
	var parts []string
	for _, l := range strings.Split(by, ",") {
		parts = append(parts, "{{"+strings.TrimSpace(l)+"}}")
	}
	return strings.Join(parts, " ")
}
