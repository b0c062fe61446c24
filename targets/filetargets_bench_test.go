package targets

import (
	"fmt"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery/targetgroup"
)

// BenchmarkCountTargets counts the file: 60,000 targets in a
// 3.9 MB file_sd JSON file (done once per content, not per refresh).
func BenchmarkCountTargets(b *testing.B) {
	body := []byte(fileOf(60_000, true))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if n := countTargets(body, ".json"); n != 60_000 {
			b.Fatal(n)
		}
	}
}

// BenchmarkGroupsSum fingerprints an update of 60,000 targets: what an
// unchanged update costs now instead of a Derive.
func BenchmarkGroupsSum(b *testing.B) {
	g := &targetgroup.Group{Source: "f", Labels: model.LabelSet{"model": "m"}}
	for i := range 60_000 {
		g.Targets = append(g.Targets, model.LabelSet{model.AddressLabel: model.LabelValue(fmt.Sprintf("10.%d.%d.%d:8000", i>>16, i>>8&255, i&255))})
	}
	all := map[string][]*targetgroup.Group{"files": {g}}
	for b.Loop() {
		groupsSum(all)
	}
}
