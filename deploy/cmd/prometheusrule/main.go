// Command prometheusrule writes deploy/kubernetes/base/prometheusrule.yaml
// from alerts/*.yml. Run from deploy/: go run ./cmd/prometheusrule
package main

import (
	"fmt"
	"os"

	"github.com/llm-prober/llm-prober/deploy/internal/promrule"
)

func main() {
	b, err := promrule.Render("../alerts")
	if err == nil {
		err = os.WriteFile("kubernetes/base/prometheusrule.yaml", b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
