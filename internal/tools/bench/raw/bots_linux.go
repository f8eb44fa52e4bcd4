package raw

import (
	"context"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// RunBots runs raw bots: cfg.Count sockets from cfg.Local, each sending
// one cfg.Size-byte datagram to cfg.Server every tick and then reading
// what came back, until ctx ends. The sockets are non-blocking and
// outside the Go runtime's poller, read once a tick, as a drained
// udp.Client's (the load bots'): a datagram the raw loop sends wakes no
// thread of the bots' process, just as the server's wake none of the
// load bots', so that both loops pay the same for their peers.
func RunBots(ctx context.Context, cfg BotsConfig) error {
	server, err := netip.ParseAddrPort(cfg.Server)
	if err != nil {
		return err
	}
	local, err := netip.ParseAddr(cfg.Local)
	if err != nil {
		return err
	}
	if !local.Is4() || !server.Addr().Is4() {
		return fmt.Errorf("raw bots: %s from %s: IPv4 addresses only", cfg.Server, cfg.Local)
	}
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for range cfg.Count {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		fds = append(fds, fd)
		if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: local.As4()}); err != nil {
			return err
		}
		if err := unix.Connect(fd, &unix.SockaddrInet4{Addr: server.Addr().As4(), Port: int(server.Port())}); err != nil {
			return err
		}
	}
	p, buf := make([]byte, cfg.Size), make([]byte, 2048)
	return everyTick(ctx, cfg.Rate, func() {
		for _, fd := range fds {
			unix.Write(fd, p)
			for {
				if _, err := unix.Read(fd, buf); err != nil {
					break // nothing more waiting (EAGAIN), or refused before the loop noted us
				}
			}
		}
	})
}
