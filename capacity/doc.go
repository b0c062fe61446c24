// Package capacity is the capacity formula, in one place: replicas and
// GPUs for a daily demand at a peak-to-average ratio with headroom,
// against a measured knee (NewPlan). `llm-prober bench` and `llm-prober
// plan` both use it.
//
// Imports: internal/textfmt only. Never bench's packages.
package capacity
