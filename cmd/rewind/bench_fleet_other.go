//go:build !linux

package main

import "os/exec"

// dieWithParent does nothing where the parent's death cannot be signalled:
// bench fleet stops its bots when it ends or is interrupted.
func dieWithParent(*exec.Cmd) {}
