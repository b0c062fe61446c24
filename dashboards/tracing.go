package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// traceIDLabel is the exemplar label llm-prober puts beside probe_id: the
// W3C trace id the probe sent in its traceparent header, under which a
// server started with --otlp-traces-endpoint records the request.
const traceIDLabel = "trace_id"

// tracingVar picks the tracing data source (Tempo) the trace_id exemplar
// links open. Jaeger works too through the data source's own exemplar
// settings (docs/dashboards.md).
func tracingVar() *dashboard.DatasourceVariableBuilder {
	return dashboard.NewDatasourceVariableBuilder("tracing").
		Label("Traces").
		Description("Tracing data source (Tempo) that holds the inference server's and llm-prober's spans; the trace_id of a probe exemplar opens there.").
		Type("tempo").
		Current(dashboard.VariableOption{Selected: ptr(true), Text: textOpt("default"), Value: textOpt("default")})
}

// traceLinks is the data link on the exemplars' trace_id field: one click
// opens the trace in Explore on the tracing data source.
func traceLinks() []dashboard.DynamicConfigValue {
	url := `/explore?schemaVersion=1&orgId=1&panes={"trace":{"datasource":"${tracing}","queries":[{"refId":"A","datasource":{"uid":"${tracing}"},"queryType":"traceql","query":"${__value.raw}"}],"range":{"from":"now-1h","to":"now"}}}`
	return []dashboard.DynamicConfigValue{{Id: "links", Value: []map[string]any{{
		"title":       "Trace ${__value.raw} in ${tracing}",
		"url":         url,
		"targetBlank": true,
	}}}}
}

func anyExemplar(qs []q) bool {
	for _, x := range qs {
		if x.exemplar {
			return true
		}
	}
	return false
}
