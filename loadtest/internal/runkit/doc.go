// Package runkit builds runs for the tests of bench's packages: default
// options against a mock target, a workload run end to end, and synthetic
// Runs with known records.
//
// Imports: loadtest, workload, internal/testutil/mocktarget.
package runkit
