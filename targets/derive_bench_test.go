package targets

import (
	"fmt"
	"testing"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"
)

// BenchmarkDerive10k: relabel, build and shard 10,000 discovered targets,
// what every discovery update costs a replica before the scheduler's Apply.
func BenchmarkDerive10k(b *testing.B) {
	cfg := loadConfig(b, b.TempDir(), fileSD)
	g := &targetgroup.Group{Source: "sd.json", Labels: model.LabelSet{"model": "llama"}}
	for i := range 10000 {
		g.Targets = append(g.Targets, model.LabelSet{"__address__": model.LabelValue(fmt.Sprintf("10.%d.%d.%d:8000", i>>16&255, i>>8&255, i&255))})
	}
	f := NewFleet(log.NewNopLogger(), prometheus.NewRegistry(), Shard{Count: 4}, nil)
	f.groups = map[string][]*targetgroup.Group{"files": {g}}
	b.ResetTimer()
	for b.Loop() {
		if n := len(f.Derive(cfg).Targets); n < 2000 {
			b.Fatal(n)
		}
	}
}
