package resultfile

import (
	"fmt"
	"math"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
)

// maxGapSeconds is the largest worst gap a Record holds (MaxGapUs is an
// int32 of µs, about 35 minutes): bench never writes more.
const maxGapSeconds = float64(math.MaxInt32) / 1e6

// maxGapUs is a request's worst gap (Record.MaxGapUs) from its "max_itl"
// (s), checked: it may exceed every closed gap in "itls", as it holds
// the gap still open when a request failed or was cut off while
// decoding, so it is read, never recomputed. A file written before
// max_itl existed has none: its closed gaps are all there is.
func maxGapUs(maxITL *float64, itls []float64) (int32, error) {
	if maxITL == nil {
		var worst float64
		for _, g := range itls {
			worst = max(worst, g)
		}
		return loadtest.GapUs(time.Duration(math.Round(min(worst, maxGapSeconds) * 1e9))), nil
	}
	v := *maxITL
	if !(v >= 0 && v <= maxGapSeconds) {
		return 0, fmt.Errorf("max_itl: %g s is out of range (0 to %.0f s)", v, maxGapSeconds)
	}
	return int32(math.Round(v * 1e6)), nil
}
