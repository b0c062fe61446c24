// Command generate writes the llm-prober Grafana dashboards as JSON.
//
//	cd dashboards && go run ./cmd/generate -out .
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/llm-prober/llm-prober/dashboards"
)

func main() {
	out := flag.String("out", ".", "directory to write the dashboard JSON files to")
	flag.Parse()
	files, err := dashboards.Render()
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
