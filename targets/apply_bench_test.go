package targets

import (
	"fmt"
	"testing"

	"github.com/go-kit/log"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/prober"
)

// BenchmarkApplyChange: one shard of 4 applies a file_sd change that
// replaces 1,000 of 10,000 targets, as cmd/llm-prober does (Derive, then
// the scheduler's and the collector's Apply), alternating between the two
// lists. Loopback addresses and a 1 h interval: nothing is probed meanwhile.
func BenchmarkApplyChange(b *testing.B) {
	cfg := loadConfig(b, b.TempDir(), fileSD+"      interval: 1h\n")
	cfg.Targets = nil
	group := func(from int) []*targetgroup.Group {
		g := &targetgroup.Group{Source: "sd.json", Labels: model.LabelSet{"model": "llama"}}
		for i := from; i < from+10000; i++ {
			g.Targets = append(g.Targets, model.LabelSet{"__address__": model.LabelValue(fmt.Sprintf("127.%d.%d.%d:1", 1+i/62500, i/250%250, i%250+1))})
		}
		return []*targetgroup.Group{g}
	}
	lists := [2][]*targetgroup.Group{group(0), group(1000)}
	f := NewFleet(log.NewNopLogger(), prometheus.NewRegistry(), Shard{Count: 4}, nil)
	s := prober.NewScheduler(log.NewNopLogger(), prober.NewMetrics(prometheus.NewRegistry()), "bench", nil)
	m := collector.NewManager(log.NewNopLogger())
	defer s.Stop(0)
	defer m.Stop()
	apply := func(i int) {
		f.groups = map[string][]*targetgroup.Group{"files": lists[i%2]}
		d := f.Derive(cfg)
		s.Apply(d)
		m.Apply(d.Targets)
	}
	apply(1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		apply(i)
	}
}
