// Command generate writes the llm-prober Grafana dashboards as JSON and the
// Prometheus recording and alerting rules as YAML, from one source.
//
//	cd dashboards && go run ./cmd/generate -out . -rules-out ../alerts
//
// The rule options (-selector, -cluster-label, -grafana-url, ...) make a
// variant for your setup; the committed files use the defaults.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/llm-prober/llm-prober/dashboards"
	"github.com/llm-prober/llm-prober/dashboards/rules"
)

func main() {
	def := rules.Default()
	out := flag.String("out", "", "directory to write the dashboard JSON files to (empty: none)")
	rulesOut := flag.String("rules-out", "", "directory to write llm-prober-rules.yml and llm-prober-alerts.yml to (empty: none)")
	docs := flag.String("docs", "", "docs/dashboards.md to refresh the generated panel reference of (empty: none)")
	c := rules.Config{}
	flag.StringVar(&c.Selector, "selector", def.Selector, `matchers added to every llm-prober series and up, e.g. job="llm-prober" (empty: any job)`)
	flag.StringVar(&c.ClusterLabel, "cluster-label", def.ClusterLabel, "label kept by every aggregation for multi-cluster setups (empty: none)")
	flag.StringVar(&c.GrafanaURL, "grafana-url", def.GrafanaURL, "Grafana base URL for the dashboard_url annotations")
	flag.StringVar(&c.RunbookURL, "runbook-url", def.RunbookURL, "runbook document for the runbook_url annotations")
	flag.IntVar(&c.PeriodDays, "period-days", def.PeriodDays, "SLO period (error budget window) in days; the burn factors follow from it")
	flag.Float64Var(&c.Objective, "objective", def.Objective, "objective of every SLO (fraction of good probes)")
	flag.IntVar(&c.MinProbes, "min-probes", def.MinProbes, "probes a burn-rate alert needs in its long window")
	flag.Parse()
	if *out != "" {
		files, err := dashboards.RenderWith(c)
		if err != nil {
			log.Fatal(err)
		}
		for name, b := range files {
			p := filepath.Join(*out, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				log.Fatal(err)
			}
			log.Printf("wrote %s", p)
		}
	}
	if *docs != "" {
		if err := writeDocs(*docs, c); err != nil {
			log.Fatal(err)
		}
		log.Printf("wrote %s", *docs)
	}
	if *rulesOut != "" {
		written, err := rules.Write(c, *rulesOut)
		if err != nil {
			log.Fatal(err)
		}
		for _, p := range written {
			log.Printf("wrote %s", p)
		}
	}
}

// writeDocs refreshes the generated part of the dashboards reference.
func writeDocs(path string, c rules.Config) error {
	files, err := dashboards.RenderWith(c)
	if err != nil {
		return err
	}
	gen, err := dashboards.PanelDocs(files)
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := dashboards.SpliceDocs(doc, gen)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
