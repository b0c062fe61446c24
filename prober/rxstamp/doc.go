// Package rxstamp owns the kernel-timestamped TCP connection (Linux
// SO_TIMESTAMPNS) under the prober's HTTP client: when the bytes a probe
// reads arrived, and the cap on response headers counted on the wire.
//
// It may import the standard library and golang.org/x/sys only; the
// prober imports it, never the other way (prober/layers_test.go).
package rxstamp
