package cfgsweep

import "syscall"

// sysProcAttr puts the server in a process group of its own and has the
// kernel SIGKILL it when the thread that started it ends: a bench killed
// outright (SIGKILL, the OOM killer) leaves no server holding the GPUs.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
