//go:build linux

package soak

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// soakNetns is bench soak's network namespace: the players run inside it
// and reach the rest of the machine only through a veth pair, whose
// host end carries the lossy forwarder's address. Inside, the namespace
// has its loopback and its end of the pair, with a /30 of 10.x.y.z
// private addresses and no default route: nothing can leave the machine
// from there, and nothing reaches the server but through the forwarder
// (the server listens on the host's 127.0.0.1, which the namespace's own
// loopback is not).
type soakNetns struct {
	name           string // ip netns NAME: rwsoak-PID-XXXX
	hostIf, nsIf   string // the veth pair's ends
	hostIP, nsIP   netip.Addr
	madeNS, madeIf bool
}

// newSoakNetns makes a namespace with a veth pair, or says why it cannot
// (not root, no ip command, no namespaces in this kernel or container).
// Whatever it made is removed when it fails.
func newSoakNetns() (_ *soakNetns, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("not root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return nil, errors.New("no ip command (iproute2)")
	}
	removeStaleSoakNetns()
	var r [8]byte
	rand.Read(r[:])
	tag := binary.LittleEndian.Uint32(r[:4]) & 0xffffff
	n := &soakNetns{
		name:   fmt.Sprintf("%s%d-%06x", NetnsPrefix, os.Getpid(), tag),
		hostIf: fmt.Sprintf("rws%06xh", tag),
		nsIf:   fmt.Sprintf("rws%06xn", tag),
	}
	if n.hostIP, n.nsIP, err = freeSubnet(r[4:]); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			n.close()
		}
	}()
	if err := ipCmd("netns", "add", n.name); err != nil {
		return nil, err
	}
	n.madeNS = true
	if err := ipCmd("link", "add", n.hostIf, "type", "veth", "peer", "name", n.nsIf, "netns", n.name); err != nil {
		return nil, err
	}
	n.madeIf = true
	for _, args := range [][]string{
		{"addr", "add", n.hostIP.String() + "/30", "dev", n.hostIf},
		{"link", "set", n.hostIf, "up"},
		{"-n", n.name, "addr", "add", n.nsIP.String() + "/30", "dev", n.nsIf},
		{"-n", n.name, "link", "set", n.nsIf, "up"},
		{"-n", n.name, "link", "set", "lo", "up"},
	} {
		if err := ipCmd(args...); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// wrap returns cmd run inside the namespace (ip netns exec NAME ...),
// with cmd's environment and output.
func (n *soakNetns) wrap(cmd *exec.Cmd) *exec.Cmd {
	w := exec.Command("ip", append([]string{"netns", "exec", n.name, cmd.Path}, cmd.Args[1:]...)...)
	w.Env, w.Stdin, w.Stdout, w.Stderr = cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr
	return w
}

// close removes the veth pair and the namespace (the processes inside
// must have ended); it is safe to call on a half-made one, and twice.
func (n *soakNetns) close() error {
	var errs []error
	if n.madeIf {
		n.madeIf = false
		if err := ipCmd("link", "del", n.hostIf); err != nil {
			errs = append(errs, err)
		}
	}
	if n.madeNS {
		n.madeNS = false
		if err := ipCmd("netns", "del", n.name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ipCmd runs the ip command with args.
func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// freeSubnet picks a /30 in 10.200.0.0-10.249.255.255 that no interface
// of the host has an address in, from the random bytes r, and returns
// its two usable addresses.
func freeSubnet(r []byte) (host, ns netip.Addr, err error) {
	addrs, _ := net.InterfaceAddrs()
	for i := range 64 {
		base := netip.AddrFrom4([4]byte{10, 200 + (r[0]+byte(i))%50, r[1] + byte(i*7), r[2] &^ 3})
		p := netip.PrefixFrom(base, 30)
		taken := false
		for _, a := range addrs {
			if in, ok := a.(*net.IPNet); ok {
				if q, err := netip.ParsePrefix(in.String()); err == nil && q.Overlaps(p) {
					taken = true
				}
			}
		}
		if !taken {
			return base.Next(), base.Next().Next(), nil
		}
	}
	return host, ns, errors.New("no free 10.x /30 for the veth pair")
}

// removeStaleSoakNetns removes the namespaces of earlier bench soak runs
// that died without cleaning up (SIGKILL): those whose process is gone
// and that no process is inside. Deleting a namespace takes its end of
// the veth pair, and so the pair, with it.
func removeStaleSoakNetns() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], NetnsPrefix) {
			continue
		}
		name := f[0]
		pid, _, _ := strings.Cut(strings.TrimPrefix(name, NetnsPrefix), "-")
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); err == nil {
			continue // its run is alive
		}
		if pids, err := exec.Command("ip", "netns", "pids", name).Output(); err != nil || len(bytes.TrimSpace(pids)) > 0 {
			continue
		}
		_ = ipCmd("netns", "del", name)
	}
}
