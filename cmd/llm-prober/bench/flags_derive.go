package bench

import (
	"github.com/alecthomas/kingpin/v2"
	"github.com/llm-prober/llm-prober/cmd/llm-prober/internal/promflags"
)

// addDeriveFlags registers the flags that make bench send the workload a
// server actually serves, with plan's Prometheus flags.
func addDeriveFlags(c *kingpin.CmdClause, d *DeriveConfig) {
	c.Flag("workload-from-prometheus", "Synthesise the workload from the server's own series in Prometheus (--prometheus.url, --selector, --window): "+
		"prompt and output lengths drawn from its length histograms, the mean rate (unless --request-rate), the burstiness (unless --burstiness) "+
		"and a shared prefix giving its prefix-cache hit rate (unless --prefix-tokens).").BoolVar(&d.FromPrometheus)
	c.Flag("save-workload", "Write the derived workload to this JSON file, for --workload-file.").StringVar(&d.Save)
	c.Flag("workload-file", "Send the workload saved by --save-workload (no Prometheus needed).").StringVar(&d.File)
	d.Prometheus = promflags.Add(c)
}
