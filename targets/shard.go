package targets

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"strconv"
	"strings"

	"github.com/llm-prober/llm-prober/config"
)

// Shard is this replica's part of the fleet: Index in [0, Count).
type Shard struct {
	Count, Index int
}

// Validate rejects an index outside [0, Count).
func (s Shard) Validate() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard index %d is not in [0, %d)", s.Index, s.Count)
	}
	return nil
}

// Owner is the shard that probes the target called name, by rendezvous
// (highest random weight) hashing: each shard scores the name and the
// highest score wins. Going from N to N+1 shards moves only the targets
// that the new shard now wins, about 1/(N+1) of them, where modulo
// hashing would move almost all; every replica computes the same owner
// from the name alone, with no coordination.
func Owner(name string, count int) int {
	best, bestScore := 0, uint64(0)
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	base := h.Sum64()
	for i := range count {
		if s := mix(base, uint64(i)); i == 0 || s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// mix scores (name, shard) with a 64-bit finaliser (splitmix64's), which
// spreads the scores evenly where FNV alone of similar names would not.
func mix(a, b uint64) uint64 {
	z := a ^ bits.RotateLeft64(b*0x9e3779b97f4a7c15, 31)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Owns reports whether this shard probes the target called name.
func (s Shard) Owns(name string) bool {
	return s.Count <= 1 || Owner(name, s.Count) == s.Index
}

// Select keeps the targets this shard owns, in order.
func (s Shard) Select(ts []*config.Target) []*config.Target {
	if s.Count <= 1 {
		return ts
	}
	out := make([]*config.Target, 0, len(ts)/s.Count+1)
	for _, t := range ts {
		if s.Owns(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// ParseShard reads --shard.count and --shard.index. The index is a number
// or a name ending in -N, such as a StatefulSet pod's (web-2 is shard 2),
// so that the manifest can pass $(POD_NAME) through the downward API.
func ParseShard(count int, index string) (Shard, error) {
	digits := index[strings.LastIndex(index, "-")+1:]
	i, err := strconv.Atoi(digits)
	if err != nil || digits == "" || digits[0] == '+' || strings.HasPrefix(index, "-") {
		return Shard{}, fmt.Errorf("shard index %q is neither a number nor a name ending in -N", index)
	}
	s := Shard{Count: count, Index: i}
	return s, s.Validate()
}
