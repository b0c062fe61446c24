package loadtest

import (
	"slices"
	"testing"
)

func TestBlocksKeepOrderAcrossBlocks(t *testing.T) {
	var l blocks
	if l.flatten() != nil {
		t.Fatal("empty list flattens to non-nil")
	}
	var want []int64
	for i := range 2*blockLen + 3 {
		v := int64(i*7 - 5)
		l.add(v)
		want = append(want, v)
	}
	if len(l.b) != 3 {
		t.Errorf("%d blocks for %d values, want 3", len(l.b), len(want))
	}
	got := l.flatten()
	if !slices.Equal(got, want) || cap(got) != len(want) {
		t.Errorf("flatten: %d values (cap %d), equal %v", len(got), cap(got), slices.Equal(got, want))
	}
	if l.n != 0 || l.b != nil {
		t.Error("flatten did not empty the list")
	}
}
