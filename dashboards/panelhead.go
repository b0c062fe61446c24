package dashboards

import "github.com/grafana/grafana-foundation-sdk/go/common"

// panelBuilder is what every panel kind's builder in the SDK has (each
// returns its own type), so that one function sets what all our panels
// share.
type panelBuilder[B any] interface {
	Id(uint32) B
	Title(string) B
	Description(string) B
	Datasource(common.DataSourceRef) B
	Unit(string) B
	NoValue(string) B
	Span(uint32) B
	Height(uint32) B
}

// head sets a panel's id, texts, data source, unit, empty-panel text and
// size, alike for every panel kind.
func head[B panelBuilder[B]](b B, id uint32, title, desc, unit, noValue string, w, h uint32) B {
	return b.Id(id).
		Title(title).
		Description(desc).
		Datasource(dsRef()).
		Unit(unit).
		NoValue(noValue).
		Span(w).Height(h)
}
