package config

import "time"

// maxITL rejects a max_itl SLO that can never be the one a probe fails:
// without a second chunk there is no gap, and no gap is longer than the
// whole stream.
func (c *checker) maxITL(path string, m *Module) {
	itl := time.Duration(m.SLO.MaxITL)
	if itl <= 0 {
		return
	}
	if m.MaxTokens < 2 {
		c.errf(path, "max_itl needs max_tokens of at least 2 (got %d): one chunk has no gap between chunks", m.MaxTokens)
	}
	if e2el := time.Duration(m.SLO.E2EL); e2el > 0 && itl >= e2el {
		c.errf(path, "max_itl %s is not below the e2el SLO %s: a gap inside the stream can never exceed it", m.SLO.MaxITL, m.SLO.E2EL)
	}
}
