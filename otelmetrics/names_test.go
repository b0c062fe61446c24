package otelmetrics

import (
	"os"
	"strings"
	"testing"
)

// promName is the name Prometheus's OTLP receiver gives an instrument
// with its default translation: underscores, the unit as a suffix.
func promName(i instrument) string {
	n := strings.ReplaceAll(i.name, ".", "_")
	if i.unit == "s" {
		n += "_seconds"
	}
	return n
}

// docs/opentelemetry.md names every instrument of the table, under its
// OTLP and its Prometheus name, and the conventions version: a rename in
// names.go that the page does not follow fails here.
func TestDocsListTheTable(t *testing.T) {
	b, err := os.ReadFile("../docs/opentelemetry.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, i := range []instrument{clientDuration, clientTokens, clientTTFC, clientTPOC, serverDuration, serverTTFT, serverTPOT} {
		for _, n := range []string{i.name, promName(i)} {
			if !strings.Contains(doc, "`"+n+"`") {
				t.Errorf("docs/opentelemetry.md does not name `%s`", n)
			}
		}
	}
	if !strings.Contains(doc, "**"+ConventionsVersion+"**") || !strings.Contains(doc, SchemaURL) {
		t.Errorf("docs/opentelemetry.md does not give the conventions version %s and %s", ConventionsVersion, SchemaURL)
	}
	for fam := range serverFamilies {
		if !strings.HasPrefix(fam, "llm_prober_server_") {
			t.Errorf("server family %s is not one the collector re-exports", fam)
		}
	}
}
