package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func parseNode(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return resolve(&n)
}

func pairString(ps []pair) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s=%s ", p.k.Value, resolve(p.v).Value)
	}
	return strings.TrimSpace(b.String())
}

// Explicit keys win over merged ones, earlier merges over later ones, at
// any depth; duplicate explicit keys stay for the decoder to reject.
func TestPairsPrecedence(t *testing.T) {
	n := parseNode(t, `
a: &a {x: a1, y: a2}
b: &b {<<: *a, y: b2, z: b3}
c: {<<: [*b, {w: i1, x: i2}], z: c3, z: c3bis}
`)
	got := pairString(pairs(resolve(n.Content[5])))
	if want := "z=c3 z=c3bis y=b2 x=a1 w=i1"; got != want {
		t.Errorf("pairs %q, want %q", got, want)
	}
}

// A chain of mappings each merging the previous one twice has 2^levels
// merge paths; pairs must visit each mapping once, and stop at a mapping
// that merges itself.
func TestPairsLinear(t *testing.T) {
	const levels = 40
	var b strings.Builder
	b.WriteString("- &m0 {k0: v}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "- &m%d {<<: [*m%d, *m%d], k%d: v}\n", i, i-1, i-1, i)
	}
	b.WriteString("- &self {<<: [*self, *m1], own: v}\n")
	n := parseNode(t, b.String())
	done := make(chan [2]int, 1)
	go func() {
		done <- [2]int{len(pairs(n.Content[levels])), len(pairs(n.Content[levels+1]))}
	}()
	select {
	case got := <-done:
		if got != [2]int{levels + 1, 3} {
			t.Errorf("got %v pairs, want [%d 3]", got, levels+1)
		}
	case <-time.After(hostileTimeBound):
		t.Fatalf("pairs did not return within %s", hostileTimeBound)
	}
}
