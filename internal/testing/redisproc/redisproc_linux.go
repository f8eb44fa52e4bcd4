//go:build linux

package redisproc

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes redis-server get SIGKILL when the process that
// started it dies, even by a panic that skips its cleanup.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
