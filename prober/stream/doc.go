// Package stream owns the OpenAI-compatible streaming wire format: the
// Server-Sent Events framing (Reader) and the decoding of one chunk
// (Parse: a single-pass scanner with encoding/json as the reference),
// under the caps in limits.go. Its errors carry a Kind that the prober
// maps onto its failure taxonomy.
//
// It may import the standard library only (its tests internal/testutil,
// for a mock's stream); the prober imports it, never the other way
// (prober/layers_test.go).
package stream
