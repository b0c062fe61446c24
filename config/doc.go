// Package config defines the llm-prober configuration file: what to send
// (modules), where to send it (targets), and the defaults shared by both;
// its loading with file:line:field errors, validation, secrets and reload.
//
// It may import backend, capacity/kneefile, internal/safefile,
// Prometheus's common, discovery and relabel packages, and its own
// sub-packages (config/otlpcfg, config/regex, config/yamlbudget), which
// import none of config's packages: imports point one way
// (layers_test.go).
package config
