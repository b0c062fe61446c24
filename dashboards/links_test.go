package dashboards

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLinksKeepSelection: a data link to another llm-prober dashboard
// carries every selection variable (issue 33: Capacity → Target dropped
// cluster, location and model, so a multi-cluster user landed on All).
func TestLinksKeepSelection(t *testing.T) {
	vars := []string{"datasource", "cluster", "job", "location", "instance", "target", "model"}
	found := 0
	for _, name := range jsonFiles(t) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var d any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		for _, u := range linkURLs(d) {
			if !strings.HasPrefix(u, "/d/llm-prober-") {
				continue
			}
			found++
			for _, v := range vars {
				if !strings.Contains(u, "${"+v+":queryparam}") && !strings.Contains(u, "var-"+v+"=") {
					t.Errorf("%s: link %s drops $%s", name, u, v)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no link between the dashboards found")
	}
}

// linkURLs collects the "url" of every link object in a decoded dashboard.
func linkURLs(v any) []string {
	return collectJSON(v, func(x map[string]any) []string {
		if s, ok := x["url"].(string); ok {
			return []string{s}
		}
		return nil
	})
}

// collectJSON gathers what pick finds in every object of a decoded JSON
// value, at any depth.
func collectJSON(v any, pick func(map[string]any) []string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		out = append(out, pick(x)...)
		for _, c := range x {
			out = append(out, collectJSON(c, pick)...)
		}
	case []any:
		for _, c := range x {
			out = append(out, collectJSON(c, pick)...)
		}
	}
	return out
}
