package dashboards

import "github.com/grafana/grafana-foundation-sdk/go/dashboard"

// The dashboards are written in Grafana's classic JSON schema, the one the
// import UI and file provisioning read. The SDK marks its builder for that
// schema deprecated in favour of the v2 schema (dashboardv2), which Grafana
// imports only behind a feature flag, so the classic one is used on
// purpose, through these names.
type (
	dashboardBuilder = dashboard.DashboardBuilder //nolint:staticcheck // classic schema on purpose
	grafanaDashboard = dashboard.Dashboard        //nolint:staticcheck // classic schema on purpose
)

func newDashboardBuilder(title string) *dashboardBuilder {
	return dashboard.NewDashboardBuilder(title) //nolint:staticcheck // classic schema on purpose
}
