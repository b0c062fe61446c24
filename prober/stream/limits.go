package stream

// Fixed caps on what one stream may make the reader keep, whatever the
// server sends (prober/limits.go says why, docs/reliability.md lists them).
const (
	// MaxLineBytes bounds one SSE line and one event's data.
	MaxLineBytes = 1 << 20
	// MaxOutputBytes bounds the answer text one chunk contributes.
	MaxOutputBytes = 64 << 10
	// MaxUsageTokens bounds each token count of a usage object (prompt,
	// completion, cached): 16 Mi tokens, above any model's context window.
	MaxUsageTokens = 1 << 24
)
