// Package promflags registers the flags of the Prometheus source that
// plan and bench --workload-from-prometheus share.
package promflags

import (
	"strconv"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/capacity/promsource"
)

// Add registers the Prometheus source's flags that plan and
// bench --workload-from-prometheus share. --prometheus.url is not marked
// required, so that bench may leave the source out: Config refuses an
// empty one, and Given says whether it was given.
func Add(c *kingpin.CmdClause) *promsource.Flags {
	f := promsource.NewFlags()
	c.Flag("prometheus.url", "Base URL of the Prometheus that scrapes llm-prober (e.g. http://prometheus:9090).").StringVar(&f.URL)
	c.Flag("prometheus.http-config-file", "Client settings for --prometheus.url (prometheus/common http_client_config YAML: basic_auth with password_file, authorization with credentials_file, tls_config). Redirects are never followed.").StringVar(&f.HTTPConfigFile)
	c.Flag("prometheus.timeout", "Timeout of each query to Prometheus.").Default("1m").DurationVar(&f.Timeout)
	c.Flag("prometheus.max-response-bytes", "Largest answer read from Prometheus, in bytes (after gzip); a larger one is refused.").Default(strconv.Itoa(promsource.DefaultMaxResponseBytes)).Int64Var(&f.MaxResponseBytes)
	c.Flag("selector", "PromQL label matchers picking the target(s), e.g. '{target=\"vllm-a\"}' (default: every target); several targets are summed.").Default("{}").StringVar(&f.Selector)
	c.Flag("window", "How much served traffic to read, a Prometheus duration (e.g. 1d, 7d).").Default("7d").SetValue(&f.Window)
	c.Flag("window.end", "End of --window, RFC 3339 (e.g. 2026-11-20T00:00:00Z) or a Unix time (default: now).").StringVar(&f.End)
	return f
}

// AddRateInterval adds plan's --rate-interval: the range of the rates
// its peak is found among (bench reads no rates).
func AddRateInterval(c *kingpin.CmdClause, f *promsource.Flags) {
	c.Flag("rate-interval", "Range of the rates the peak is found among (rate(...[5m]), as dashboards use); at least 4 scrape intervals.").Default("5m").SetValue(&f.RateInterval)
}
