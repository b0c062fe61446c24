package workload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/llm-prober/llm-prober/config"
)

// Reseedable is a workload that can draw another set of prompts: a new
// seed gives prompts no earlier run sent, so a server's prefix cache
// cannot serve them (a shared prefix, if any, stays shared).
type Reseedable interface {
	WithSeed(seed int64) Workload
}

// Reseed returns w drawing with seed, or w itself if it cannot.
func Reseed(w Workload, seed int64) Workload {
	if r, ok := w.(Reseedable); ok {
		return r.WithSeed(seed)
	}
	return w
}

// WithSeed is s with another seed for the prompts and lengths; the shared
// Prefix stays the same (a workload with one asks for sharing).
func (s *Synthetic) WithSeed(seed int64) Workload {
	c := *s
	c.Seed = seed
	return &c
}

// WithSeed is d starting at another entry, derived from seed, so a run
// of fewer requests than the dataset holds sends entries the last did not.
func (d *Dataset) WithSeed(seed int64) Workload {
	n := len(d.Items)
	if n == 0 {
		return d
	}
	off := int(uint64(seed) * 0x9e3779b97f4a7c15 % uint64(n))
	items := make([]Item, 0, n)
	items = append(append(items, d.Items[off:]...), d.Items[:off]...)
	return &Dataset{Name: d.Name, Items: items}
}

// NewCacheSalt returns a random cache_salt: vLLM (≥ 0.9, V1 engine) hashes
// it into the first KV block, so no block of an earlier run is reused.
func NewCacheSalt() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return "llm-prober-bench-" + hex.EncodeToString(b[:])
}

// ResetPrefixCache asks the server to empty its prefix cache, as vllm
// bench sweep does between runs: POST /reset_prefix_cache (vLLM with
// VLLM_SERVER_DEV_MODE=1). It reports whether the server did; a server
// without the endpoint (404, 405) is no error. It waits at most timeout
// (the run's --timeout): a server busy emptying a large cache may take
// longer than any fixed bound, and a hung one must not hold bench longer
// than the user allowed a request.
func ResetPrefixCache(ctx context.Context, client *http.Client, t *config.Target, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL+"/reset_prefix_cache", http.NoBody)
	if err != nil {
		return false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("POST /reset_prefix_cache: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode/100 == 2:
		return true, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return false, nil
	}
	return false, fmt.Errorf("POST /reset_prefix_cache: HTTP %d", resp.StatusCode)
}
