package flood

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/rewindnet/rewind/internal/tools/attack"
)

// FlooderConfig is the flooder process's flood.
type FlooderConfig struct {
	// Server is the server's address, or Sink.
	Server string
	// Kinds, Rate, HelloRate and HelloPorts are Config's.
	Kinds                       []string
	Rate, HelloRate, HelloPorts int
}

// Flooder is the flooder process: it floods cfg.Server from IP until ctx
// ends, and returns what it sent. A Server that is neither Sink nor an
// address is an error wrapping ErrServer.
func Flooder(ctx context.Context, cfg FlooderConfig) (attack.FloodCounts, error) {
	var server netip.AddrPort
	if cfg.Server == Sink {
		sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return attack.FloodCounts{}, err
		}
		defer sink.Close()
		go func() { // read and drop, as the server's reader would
			buf := make([]byte, 2048)
			for {
				if _, _, err := sink.ReadFromUDPAddrPort(buf); err != nil && errors.Is(err, net.ErrClosed) {
					return
				}
			}
		}()
		server = sink.LocalAddr().(*net.UDPAddr).AddrPort()
	} else {
		var err error
		if server, err = netip.ParseAddrPort(cfg.Server); err != nil {
			return attack.FloodCounts{}, fmt.Errorf("%w %q: %w", ErrServer, cfg.Server, err)
		}
	}
	return attack.Flood(ctx, attack.FloodConfig{
		Server: server, Local: netip.MustParseAddr(IP), Kinds: cfg.Kinds,
		Rate: cfg.Rate, HelloRate: cfg.HelloRate, HelloPorts: cfg.HelloPorts,
	})
}
