package merge

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/shard"
)

// Key is the result file's key of a shard's Manifest.
const Key = "llm_prober_shard"

// Manifest is what a shard records of itself under Key.
type Manifest struct {
	Index   int       `json:"index"`
	Count   int       `json:"count"`
	StartAt time.Time `json:"start_at"`
	// Clock is the shard's clock estimate when it started; StartLag how
	// late it woke for StartAt, SendLagP99 and SendLagMax its measured
	// requests' send lag (ms).
	Clock      shard.Clock `json:"clock"`
	StartLag   int64       `json:"start_lag_ns"`
	SendLagP99 float64     `json:"send_lag_p99_ms"`
	SendLagMax float64     `json:"send_lag_max_ms"`
	// Scraper: this shard scraped the server's /metrics and the extra
	// exporters (shard 0 only).
	Scraper     bool `json:"scrapes_server"`
	Interrupted bool `json:"interrupted,omitempty"`
	// Spec, Sizing and Decide must be the same in every shard of a run:
	// Sizing says how prompts were sized against the server, so shards
	// that sized them differently sent different prompts.
	Spec   loadtest.Spec `json:"spec"`
	Sizing string        `json:"sizing"`
	Decide Decide        `json:"decide"`
}

// Decide are the flags that judge the run: the merge applies them to
// the union as the one process would have.
type Decide struct {
	Goodput     string   `json:"goodput"`
	Percentiles string   `json:"percentiles"`
	FailOn      []string `json:"fail_on"`
	Label       string   `json:"label"`
	Model       string   `json:"model"`
}

// differs reports the first field in which a and b differ as "field: a vs b".
func (m *Manifest) differs(o *Manifest) string {
	pairs := []struct {
		name string
		a, b any
	}{
		{"count", m.Count, o.Count},
		{"start_at", m.StartAt.UTC().Format(time.RFC3339Nano), o.StartAt.UTC().Format(time.RFC3339Nano)},
		{"spec", m.Spec, o.Spec},
		{"sizing", m.Sizing, o.Sizing},
		{"decide", m.Decide, o.Decide},
	}
	for _, p := range pairs {
		ja, _ := json.Marshal(p.a)
		jb, _ := json.Marshal(p.b)
		if string(ja) != string(jb) {
			return fmt.Sprintf("%s: %s vs %s", p.name, ja, jb)
		}
	}
	return ""
}
