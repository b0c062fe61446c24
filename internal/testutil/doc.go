// Package testutil is the one home of the scaffolding the tests of several
// packages share: a throwaway PKI, loopback addresses, files, and
// processes started and stopped by PID. Only tests import it; what programs
// share with them (the alert drill, the performance harnesses under perf/)
// is in package e2ekit below it, which does not import package testing.
package testutil
