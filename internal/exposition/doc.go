// Package exposition writes the Prometheus exposition formats (text 0.0.4,
// OpenMetrics 1.0 and delimited protobuf) straight from compact state.
//
// client_golang builds a protobuf struct for every series on every scrape
// and keeps several kilobytes of state per labelled histogram. That is fine
// for a few thousand series; a prober with 10,000 targets exposes 1.5 million,
// where a scrape took seconds and the metric state most of the heap. Here a
// family is written series by series into a reused buffer, and a histogram is
// a few slices of integers.
//
// Handler serves it as promhttp.HandlerFor does (format negotiation with
// the name-escaping scheme, gzip, Vary, the name[] filter). The output is
// checked against client_golang's by the tests of this package and of
// package prober: the same observations give byte-identical text and
// OpenMetrics from promhttp and the same protobuf messages, hostile HELP
// text and label values included. Four differences remain: the text forms
// of protobuf are answered with text 0.0.4; series come in the caller's
// order; native-histogram exemplars are not kept (the classic buckets'
// exemplars are, and Prometheus falls back to those); and a native
// histogram's scheduled reset happens at its next observation rather than
// on a timer.
package exposition
