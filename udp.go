package rewind

import (
	"context"
	"fmt"

	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// UDPOptions configures a session that connects over UDP.
type UDPOptions struct {
	Options
	// UDP configures the socket; its HandshakeTimeout bounds how long
	// ConnectUDP waits for a server to answer (default 5 s).
	UDP UDPConfig
}

// ConnectUDP opens a UDP session with the server at addr ("host:port"),
// then starts a session of g as its client (see Connect). The session owns
// the socket: Close says bye and closes it. It fails with an error
// wrapping ErrHandshake when nobody answers in time, ErrConnRefused when
// the server's socket refuses the handshake (full, or another version of
// the UDP framing), and ctx's error when ctx ends first. A match that
// refuses the player is told apart from those: the session's Update or
// Run fails with ErrRefused (a *RefusedError naming the reason).
func ConnectUDP[I any](ctx context.Context, g Game[I], addr string, opts UDPOptions) (*Session[I], error) {
	conn, err := udp.DialContext(ctx, addr, opts.UDP)
	if err != nil {
		return nil, fmt.Errorf("rewind: connect: %w", err)
	}
	return connectOwned(g, conn, opts.Options)
}

// connectOwned is Connect for a session that owns conn: Close says bye,
// then closes conn; a connectOwned that fails closes it at once.
func connectOwned[I any](g Game[I], conn transport.Conn, opts Options) (*Session[I], error) {
	s, err := Connect(g, conn, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s.own()
	return s, nil
}

// HostUDP opens a UDP socket on addr ("127.0.0.1:0" picks a free port;
// UDPAddr says which) and hosts matches of g on it (see NewHost).
func HostUDP[I any](g Game[I], addr string, opts HostOptions) (*Host[I], error) {
	ucfg := opts.UDP
	if ucfg.IdleTimeout <= 0 && opts.Server.PlayerTimeout > 0 {
		ucfg.IdleTimeout = opts.Server.PlayerTimeout
	}
	ucfg.ProveExplicitly = true // the match proves the players it admits
	sock, err := udp.Listen(addr, ucfg)
	if err != nil {
		return nil, fmt.Errorf("rewind: host: %w", err)
	}
	h, err := NewHost(g, sock, opts)
	if err != nil {
		return nil, err
	}
	h.m.Log.Info("listening", "udp", sock.UDPAddr().String(), "tick_rate", h.m.Server.TickRate(),
		"start_players", max(opts.Server.StartPlayers, 1))
	return h, nil
}
