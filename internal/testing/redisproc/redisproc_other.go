//go:build !linux

package redisproc

import "os/exec"

// dieWithParent does nothing here: the caller's Close kills redis-server.
func dieWithParent(*exec.Cmd) {}
