//go:build linux

package testutil

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes a redis-server started by a test get SIGKILL when the
// test process dies, even by a panic that skips the cleanup.
func dieWithTest(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
