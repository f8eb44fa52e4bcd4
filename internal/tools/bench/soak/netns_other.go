//go:build !linux

package soak

import (
	"errors"
	"net/netip"
	"os/exec"
)

// soakNetns is bench soak's network namespace, which exists only on
// Linux: elsewhere the soak runs its lossy path on 127.0.0.1
// (path=userspace).
type soakNetns struct {
	name, hostIf string
	hostIP, nsIP netip.Addr
}

func newSoakNetns() (*soakNetns, error) {
	return nil, errors.New("network namespaces are Linux's")
}

func (n *soakNetns) wrap(cmd *exec.Cmd) *exec.Cmd { return cmd }

func (n *soakNetns) close() error { return nil }
