package targets

import (
	"fmt"
	"testing"

	"github.com/llm-prober/llm-prober/config"
)

func fleetNames(n int) []*config.Target {
	ts := make([]*config.Target, n)
	for i := range ts {
		ts[i] = &config.Target{Name: fmt.Sprintf("10.%d.%d.%d:8000", i>>16&255, i>>8&255, i&255)}
	}
	return ts
}

// Every target is owned by exactly one shard, and shards are balanced.
func TestShardPartition(t *testing.T) {
	ts := fleetNames(10000)
	for _, n := range []int{1, 2, 4, 7} {
		owned := map[string]int{}
		for i := range n {
			got := Shard{Count: n, Index: i}.Select(ts)
			// Within 5% of an even split (binomial spread is ~1%).
			if even := len(ts) / n; len(got) < even*95/100 || len(got) > even*105/100 {
				t.Errorf("%d shards: shard %d has %d targets, want about %d", n, i, len(got), even)
			}
			for _, tg := range got {
				owned[tg.Name]++
			}
		}
		for _, tg := range ts {
			if owned[tg.Name] != 1 {
				t.Fatalf("%d shards: %s owned %d times", n, tg.Name, owned[tg.Name])
			}
		}
	}
}

// Going from N to N+1 shards moves only the targets the new shard takes
// (about 1/(N+1)); going down moves only the removed shard's.
func TestShardStability(t *testing.T) {
	ts := fleetNames(10000)
	for n := 1; n <= 8; n++ {
		moved, toNew := 0, 0
		for _, tg := range ts {
			a, b := Owner(tg.Name, n), Owner(tg.Name, n+1)
			if a != b {
				moved++
				if b == n {
					toNew++
				}
			}
		}
		if moved != toNew {
			t.Errorf("%d->%d shards: %d targets moved between old shards", n, n+1, moved-toNew)
		}
		if want := len(ts) / (n + 1); moved < want*9/10 || moved > want*11/10 {
			t.Errorf("%d->%d shards moved %d targets, want about %d", n, n+1, moved, want)
		}
	}
}

func TestShardValidate(t *testing.T) {
	for _, s := range []Shard{{0, 0}, {2, 2}, {2, -1}} {
		if s.Validate() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if (Shard{Count: 3, Index: 2}).Validate() != nil {
		t.Error("valid shard rejected")
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "3": 3, "llm-prober-2": 2, "llm-prober-0": 0} {
		if s, err := ParseShard(4, in); err != nil || s.Index != want || s.Count != 4 {
			t.Errorf("%q: %+v, %v", in, s, err)
		}
	}
	for _, in := range []string{"", "llm-prober", "4", "-1", "x-+1", "llm-prober-9"} {
		if _, err := ParseShard(4, in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
