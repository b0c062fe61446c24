package workload

import (
	"testing"
	"unsafe"
)

// A send time packed in 7 bytes holds the longest replay, to the ns.
func TestTraceRecPacksTheLongestReplay(t *testing.T) {
	for _, at := range []int64{0, 1, int64(MaxReplay) - 1, int64(MaxReplay)} {
		if got := get56(put56(at)); got != at {
			t.Errorf("%d came back as %d", at, got)
		}
	}
	if r := (traceRec{}); unsafe.Sizeof(r) != 14 {
		t.Errorf("a request takes %d bytes, want 14", unsafe.Sizeof(r))
	}
}
