//go:build !linux

package bench

import (
	"io"
	"os/exec"
)

// StartSched is Start: the child's niceness and CPUs are Linux's only.
func StartSched(s Sched, command []string, stdout, stderr io.Writer, args ...string) (*exec.Cmd, error) {
	return Start(command, stdout, stderr, args...)
}
