//go:build !unix

package cfgsweep

import (
	"context"
	"errors"
	"time"
)

var errNoGroups = errors.New("starting servers needs process groups (Linux, macOS, BSD)")

// Process is unsupported here: without process groups a server's
// children could outlive it.
type Process struct{}

// StartProcess fails: see errNoGroups.
func StartProcess([]string) (*Process, error) { return nil, errNoGroups }

func startProcess([]string, *logFile) (*Process, error) { return nil, errNoGroups }

// LogFileErr is nil.
func (p *Process) LogFileErr() error { return nil }

// Exited never closes.
func (p *Process) Exited() <-chan struct{} { return nil }

// Status is empty.
func (p *Process) Status() string { return "" }

// Tail is empty.
func (p *Process) Tail() string { return "" }

// Stop does nothing.
func (p *Process) Stop(time.Duration) {}

func runCommand(context.Context, []string, time.Duration) (string, error) { return "", errNoGroups }
