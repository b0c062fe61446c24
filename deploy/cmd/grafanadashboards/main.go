// Command grafanadashboards copies dashboards/*.json into the
// grafana-dashboards kustomize component, which cannot read files outside
// its own directory. Run from deploy/: go run ./cmd/grafanadashboards
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	files, err := filepath.Glob("../dashboards/*.json")
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no ../dashboards/*.json: run from deploy/")
	}
	for _, f := range files {
		if err != nil {
			break
		}
		var b []byte
		if b, err = os.ReadFile(f); err == nil {
			err = os.WriteFile(filepath.Join("kubernetes/components/grafana-dashboards", filepath.Base(f)), b, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
