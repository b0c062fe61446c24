// Package tracectx owns what a probe's trace is made of on the request
// side: the W3C trace context it sends (traceparent) and the times of its
// connection steps (DNS, connect, TLS) from httptrace hooks, which the
// exported span shows as events.
//
// It may import the standard library only; the prober imports it, never
// the other way (prober/layers_test.go).
package tracectx
