package mockvllm

import (
	"container/list"
	"hash/fnv"
	"sync"
)

// prefixCache simulates vLLM's automatic prefix caching: KV blocks are
// identified by a hash chained over the block's tokens and every block
// before it, the first one salted with the request's cache_salt, so two
// prompts share blocks exactly as far as their leading full blocks agree.
type prefixCache struct {
	mu        sync.Mutex
	capacity  int // blocks
	blockSize int
	lru       *list.List // of uint64, most recent at the front
	blocks    map[uint64]*list.Element
}

// reset empties the cache, as vLLM's POST /reset_prefix_cache does.
func (c *prefixCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.blocks)
}

func newPrefixCache(capacity, blockSize int) *prefixCache {
	return &prefixCache{capacity: capacity, blockSize: blockSize, lru: list.New(), blocks: map[uint64]*list.Element{}}
}

// lookup returns how many leading tokens are served from the cache, then
// caches every full block of tokens. As in vLLM, the last prompt token is
// always computed, so a prompt of n tokens hits at most the full blocks
// within its first n-1 tokens.
func (c *prefixCache) lookup(tokens []string, salt string) int {
	hashes := c.hashes(tokens, salt)
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := 0
	for i, h := range hashes {
		e, ok := c.blocks[h]
		if !ok || (i+1)*c.blockSize > len(tokens)-1 {
			break
		}
		c.lru.MoveToFront(e)
		hit++
	}
	for _, h := range hashes {
		if e, ok := c.blocks[h]; ok {
			c.lru.MoveToFront(e)
			continue
		}
		c.blocks[h] = c.lru.PushFront(h)
		for c.lru.Len() > c.capacity {
			old := c.lru.Remove(c.lru.Back()).(uint64)
			delete(c.blocks, old)
		}
	}
	return hit * c.blockSize
}

// hashes returns the chained hash of each full block.
func (c *prefixCache) hashes(tokens []string, salt string) []uint64 {
	out := make([]uint64, 0, len(tokens)/c.blockSize)
	h := fnv.New64a()
	_, _ = h.Write([]byte(salt))
	_, _ = h.Write([]byte{0})
	for i := 0; i+c.blockSize <= len(tokens); i += c.blockSize {
		for _, t := range tokens[i : i+c.blockSize] {
			_, _ = h.Write([]byte(t))
			_, _ = h.Write([]byte{0})
		}
		out = append(out, h.Sum64())
	}
	return out
}
