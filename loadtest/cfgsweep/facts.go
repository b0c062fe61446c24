package cfgsweep

import (
	"context"
	"net/http"
	"strconv"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// Facts are a configuration's capacity as its server reports it.
type Facts struct {
	KVBlocks  int `json:"kv_blocks,omitempty"`  // vllm:cache_config_info num_gpu_blocks
	BlockSize int `json:"block_size,omitempty"` // its block_size
	// MaxSeqs is the running-request limit: from the server where it says
	// (SGLang max_running_requests, TGI max_concurrent_requests,
	// llama.cpp total_slots), else the max_num_seqs (or the mock's
	// max_running) parameter.
	MaxSeqs int `json:"max_num_seqs,omitempty"`
	// MaxConcurrency is how many requests of the workload's length run at
	// once: the KV blocks over the blocks one needs, and MaxSeqs.
	MaxConcurrency int               `json:"max_concurrency,omitempty"`
	Engine         map[string]string `json:"engine_config,omitempty"`
}

// seqParams are parameter names taken as the running-request limit.
var seqParams = []string{"max_num_seqs", "max-num-seqs", "max_running", "max-running"}

// readFacts asks the server (its info endpoints and cache_config_info;
// bounded by serverwatch) and works out the concurrency.
func readFacts(ctx context.Context, client *http.Client, base string, c Configuration, tokens int) Facts {
	info := serverwatch.ServerMetadata(ctx, client, &config.Target{URL: base})
	f := Facts{Engine: info.Engine}
	atoi := func(keys ...string) int {
		for _, k := range keys {
			if n, err := strconv.Atoi(info.Engine[k]); err == nil && n > 0 {
				return n
			}
		}
		return 0
	}
	f.KVBlocks = atoi("num_gpu_blocks", "num_pages")
	f.BlockSize = atoi("block_size", "page_size")
	f.MaxSeqs = atoi("max_running_requests", "max_concurrent_requests", "total_slots")
	if f.MaxSeqs == 0 {
		for _, n := range seqParams {
			if v, ok := c.Value(n); ok {
				if m, err := strconv.Atoi(v); err == nil && m > 0 {
					f.MaxSeqs = m
					break
				}
			}
		}
	}
	f.MaxConcurrency = f.MaxSeqs
	if f.KVBlocks > 0 && f.BlockSize > 0 && tokens > 0 {
		per := (tokens + f.BlockSize - 1) / f.BlockSize
		if kv := f.KVBlocks / per; f.MaxConcurrency == 0 || kv < f.MaxConcurrency {
			f.MaxConcurrency = kv
		}
	}
	return f
}
