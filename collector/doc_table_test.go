package collector

import (
	"os"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
)

// docs/server-metrics.md's table of normalised families says, per
// backend, which source feeds each family, or "–" where the backend does
// not export it. Dashboards and the docs rely on it: it must match the
// mappings, family by family and backend by backend, with a column for
// every backend that has one.
func TestServerMetricsDocTable(t *testing.T) {
	b, err := os.ReadFile("../docs/server-metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	// One column per mapped backend, in Rank order, headed by its title.
	var columns []config.Backend
	var titles []string
	for _, k := range backend.All() {
		if len(k.Rules) > 0 {
			columns, titles = append(columns, config.Backend(k.Name)), append(titles, k.Title)
		}
	}
	documented := map[string]bool{}
	section, header := "", false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			section = line
		}
		if section == "## Normalised families" && strings.HasPrefix(line, "| our name | type | ") {
			header = true
			cells := strings.Split(strings.Trim(strings.ReplaceAll(line, `\|`, "/"), "|"), " | ")
			if len(cells) != 2+len(titles) {
				t.Errorf("header with %d columns, want our name, type and %v", len(cells), titles)
				continue
			}
			for i, title := range titles {
				if !strings.HasPrefix(strings.TrimSpace(cells[2+i]), title) {
					t.Errorf("column %d is headed %q, want %s's", 3+i, cells[2+i], title)
				}
			}
		}
		if section != "## Normalised families" || !strings.HasPrefix(line, "| llm_prober_server_") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 2+len(columns) {
			t.Errorf("row with %d cells, want %d: %s", len(cells), 2+len(columns), line)
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSpace(cells[0]), "{")
		documented[name] = true
		for i, backend := range columns {
			cell := strings.TrimSpace(cells[2+i])
			fed := feeds(registry[backend], name)
			switch {
			case cell == "–" && fed:
				t.Errorf("%s: %s feeds it, the table says it does not export it", name, backend)
			case cell != "–" && !fed:
				t.Errorf("%s: the table names %q for %s, which the mapping does not feed", name, cell, backend)
			}
		}
	}
	if !header {
		t.Error("the table's header row is gone")
	}
	for _, m := range registry {
		for _, r := range m.Rules {
			if !documented[r.Family.name] {
				t.Errorf("%s (fed by %s) is not in the table", r.Family.name, m.Backend)
			}
		}
	}
}

func feeds(m *Mapping, family string) bool {
	for _, r := range m.Rules {
		if r.Family.name == family {
			return true
		}
	}
	return false
}
