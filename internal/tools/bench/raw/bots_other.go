//go:build !linux

package raw

import (
	"context"
	"net"
	"time"
)

// RunBots runs raw bots: cfg.Count sockets from cfg.Local, each sending
// one cfg.Size-byte datagram to cfg.Server every tick and reading what
// comes back (a reader goroutine each, where sockets cannot be read
// without the runtime's poller: bots_linux.go), until ctx ends.
func RunBots(ctx context.Context, cfg BotsConfig) error {
	server, local, n, size, rate := cfg.Server, cfg.Local, cfg.Count, cfg.Size, cfg.Rate
	ra, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		return err
	}
	var conns []*net.UDPConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.ParseIP(local)}, ra)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, err := c.Read(buf); err != nil && ctx.Err() != nil {
					return
				} else if err != nil {
					time.Sleep(time.Millisecond) // a refused port before the server noted us
				}
			}
		}()
	}
	p := make([]byte, size)
	return everyTick(ctx, rate, func() {
		for _, c := range conns {
			c.Write(p)
		}
	})
}
