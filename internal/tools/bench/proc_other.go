//go:build !linux

package bench

import "os/exec"

// DieWithParent does nothing here (the system cannot say).
func DieWithParent(*exec.Cmd) {}
