//go:build linux

package main

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes a bot process get SIGTERM when bench fleet's process
// dies, however it dies (a bot never outlives the benchmark).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
