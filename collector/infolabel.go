package collector

import (
	"math"
	"strconv"
)

// labelValue sets smp's value from an info series' label, for sizes that
// servers only publish as labels (block_size, num_gpu_blocks, page_size).
// It reports false for a missing or non-numeric value.
func labelValue(smp *sample, v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	smp.value = f
	return true
}
