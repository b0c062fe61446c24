// Package serverwatch watches the server while bench runs: the server's
// own /metrics scraped on an interval (queue, running, KV cache, the
// collector's signals) into a ServerReport with its time series, extra
// exporters such as DCGM (ExtraWatcher, ExtraSet), and the run's metadata
// (server version, engine config, client host). It collects; summary
// judges and report prints.
//
// Imports: collector, config. Never the engine or anything above.
package serverwatch
