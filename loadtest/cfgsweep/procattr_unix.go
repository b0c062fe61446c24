//go:build unix && !linux

package cfgsweep

import "syscall"

// sysProcAttr puts the server in a process group of its own; there is no
// parent-death signal here, so a bench killed outright leaves it running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
