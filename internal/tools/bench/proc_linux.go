//go:build linux

package bench

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes a child get SIGTERM when the benchmark's process
// dies, however it dies (a child never outlives the benchmark).
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
