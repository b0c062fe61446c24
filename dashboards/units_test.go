package dashboards

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// grafanaUnits are the Grafana unit ids the dashboards may use (from
// Grafana's value formats); anything else is a custom unit
// ("suffix:", "prefix:"). Grafana shows an unknown id such as
// "tokens/s" as a bare number (issue 33).
var grafanaUnits = map[string]bool{
	"none": true, "short": true, "percent": true, "percentunit": true,
	"s": true, "ms": true, "µs": true, "ns": true, "m": true, "h": true, "d": true,
	"dtdurations": true, "dtdurationms": true, "dtdurations_short": true,
	"reqps": true, "rps": true, "ops": true, "opm": true, "wps": true, "rpm": true,
	"bytes": true, "decbytes": true, "bits": true, "Bps": true, "binBps": true,
	"watt": true, "celsius": true, "hertz": true, "dateTimeAsIso": true,
}

// TestUnitsAreGrafanaUnits checks every unit of every panel, override,
// axis and cell: a Grafana unit id or a custom suffix/prefix unit.
func TestUnitsAreGrafanaUnits(t *testing.T) {
	for _, name := range jsonFiles(t) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var d any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		us := units(d)
		if len(us) == 0 {
			t.Errorf("%s: no unit found: the walk is broken", name)
		}
		for _, u := range us {
			if !grafanaUnits[u] && !strings.HasPrefix(u, "suffix:") && !strings.HasPrefix(u, "prefix:") {
				t.Errorf("%s: unit %q is not a Grafana unit id (use one, or \"suffix: ...\")", name, u)
			}
		}
	}
}

// units collects "unit" values and the values of {"id": "unit"} override
// properties anywhere in a decoded dashboard.
func units(v any) []string {
	return collectJSON(v, func(x map[string]any) []string {
		var out []string
		if s, ok := x["unit"].(string); ok && s != "" {
			out = append(out, s)
		}
		if x["id"] == "unit" {
			if s, ok := x["value"].(string); ok {
				out = append(out, s)
			}
		}
		return out
	})
}
