package rewind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// RoomHostOptions configures a match hosted in a room of a rooms relay.
// Relay is required; the rest may be zero.
type RoomHostOptions struct {
	// Relay is the relay's WebSocket URL, as `rewind relay` prints it
	// (e.g. "ws://127.0.0.1:8080/rooms").
	Relay string
	// Code proposes the room's code; empty lets the relay pick one.
	Code string
	// Server configures each match. Its MaxPlayers also caps the room at
	// the relay.
	Server server.Config
	// WebRTC configures the host's WebRTC transport (the relay adds its
	// TURN server, and loopback mode when it is on a loopback address).
	WebRTC webrtc.Config
	// UDP, if set, also hosts the match on a UDP socket at this address
	// ("127.0.0.1:0" picks a free port; UDPAddr says which), so that
	// players may connect directly (`rewind play --connect`) as well as
	// by the room code.
	UDP string
	// UDPConfig configures that socket; its IdleTimeout defaults to
	// Server.PlayerTimeout.
	UDPConfig transport.UDPConfig
	// Log, if set, gets the host's events (see UDPHostOptions.Log), and
	// players' data channels opening and closing.
	Log *slog.Logger
}

// RoomHost hosts matches of one game in a room of a rooms relay: players
// join by the room code over WebRTC data channels (and, with
// RoomHostOptions.UDP, over UDP too: one match takes both at once through a
// transport.MultiConn). Like UDPHost it runs one match at a time: a match
// starts when Server.StartPlayers players have said hello and ends when
// its last player has left; the next hello starts a new one. Run drives it
// in real time; Stats may be called from any goroutine meanwhile.
//
// Match traffic goes straight between the players and the host: if the
// relay connection ends (Done), players already in keep playing, but no
// new player can find the room. Host migration (the relay moving the match
// to a new host when this one leaves) is not built yet.
type RoomHost[I any] struct {
	room *relay.RoomHost
	udp  *transport.UDPServer // nil without RoomHostOptions.UDP
	conn transport.Conn       // the room's Conn, or a MultiConn of it and udp
	url  string

	mu        sync.Mutex
	m         matchHost[I]
	relayGone bool
	closed    bool
}

// RoomHostStats is what a RoomHost has done.
type RoomHostStats struct {
	// Matches counts matches started; Running says whether one is running.
	Matches uint64
	Running bool
	// Match is the current match's counters; Total sums every match's
	// (see UDPHostStats).
	Match, Total server.Stats
	// Peers is the number of players whose WebRTC data channel is open.
	Peers int
	// UDP is the UDP socket's counters (zero without one).
	UDP transport.UDPStats
}

// HostRoom registers a room with the relay at opts.Relay and hosts matches
// of g in it. It returns once the relay has given the room its code (Code).
// ctx bounds the registration only.
func HostRoom[I any](ctx context.Context, g Game[I], opts RoomHostOptions) (*RoomHost[I], error) {
	cfg, log, err := hostSetup(g, opts.Server, opts.Log)
	if err != nil {
		return nil, err
	}
	room, err := relay.HostRoom(ctx, relay.HostOptions{
		URL:         opts.Relay,
		Code:        opts.Code,
		MaxPlayers:  cfg.MaxPlayers,
		WebRTC:      opts.WebRTC,
		OnPeerOpen:  func(a transport.Addr) { log.Info("data channel open", "peer", string(a)) },
		OnPeerClose: func(a transport.Addr) { log.Info("data channel closed", "peer", string(a)) },
	})
	if err != nil {
		return nil, fmt.Errorf("rewind: host room: %w", err)
	}
	h := &RoomHost[I]{room: room, conn: room.Conn(), url: opts.Relay}
	if opts.UDP != "" {
		udp, err := transport.ListenUDP(opts.UDP, hostUDPConfig(opts.UDPConfig, cfg))
		if err != nil {
			room.Close()
			return nil, fmt.Errorf("rewind: host room: %w", err)
		}
		multi, err := transport.NewMulti(room.Conn(), udp)
		if err != nil { // cannot happen: both are server-side Conns
			udp.Close()
			room.Close()
			return nil, fmt.Errorf("rewind: host room: %w", err)
		}
		h.udp, h.conn = udp, multi
	}
	if err := h.m.init(g, cfg, h.conn, log); err != nil {
		h.closeAll()
		return nil, err
	}
	args := []any{"room", room.Code(), "relay", opts.Relay, "tick_rate", h.m.srv.TickRate(),
		"start_players", max(cfg.StartPlayers, 1)}
	if h.udp != nil {
		args = append(args, "udp", h.udp.UDPAddr().String())
	}
	log.Info("room hosted", args...)
	return h, nil
}

// Code is the room's code: players join with it.
func (h *RoomHost[I]) Code() string { return h.room.Code() }

// Relay is the relay's URL the room is registered at.
func (h *RoomHost[I]) Relay() string { return h.url }

// UDPAddr returns the UDP socket's address, and false without one.
func (h *RoomHost[I]) UDPAddr() (netip.AddrPort, bool) {
	if h.udp == nil {
		return netip.AddrPort{}, false
	}
	return h.udp.UDPAddr(), true
}

// Room returns the relay's side of the room (its key, its Done channel).
func (h *RoomHost[I]) Room() *relay.RoomHost { return h.room }

// Conn returns the Conn the matches run over: the room's WebRTC host, or
// a MultiConn of it (member 0) and the UDP socket (member 1).
func (h *RoomHost[I]) Conn() transport.Conn { return h.conn }

// Update runs the current match at now (see server.Server.Update), logs
// what changed, and starts a new match when the current one has emptied.
func (h *RoomHost[I]) Update(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return transport.ErrClosed
	}
	if !h.relayGone {
		select {
		case <-h.room.Done():
			h.relayGone = true
			h.m.log.Warn("relay connection ended: players in the match play on, new ones cannot join by code",
				"room", h.room.Code(), "err", h.room.Err())
		default:
		}
	}
	return h.m.update(now)
}

// Run drives the host in real time until ctx is done (then it returns
// nil) or the transport fails. It does not close the host.
func (h *RoomHost[I]) Run(ctx context.Context) error {
	err := Drive(ctx, h, h.m.period/4, nil, h.conn.Ready())
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// Stats returns the host's counters. It is safe to call while Run runs.
func (h *RoomHost[I]) Stats() RoomHostStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := RoomHostStats{Peers: h.room.Conn().Peers()}
	s.Matches, s.Running, s.Match, s.Total = h.m.stats()
	if h.udp != nil {
		s.UDP = h.udp.Stats()
	}
	return s
}

// End tells the relay the match is over: players coming with the code are
// told it ended, for the relay's memory span (5 minutes). Players already
// in play on until Close.
func (h *RoomHost[I]) End() { h.room.End() }

// Close leaves the relay (which ends the room) and closes the transports;
// players' clients see the session end.
func (h *RoomHost[I]) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.m.log.Info("closing", "room", h.room.Code(), "matches", h.m.matches)
	return h.closeAll()
}

func (h *RoomHost[I]) closeAll() error {
	var err error
	if h.udp != nil {
		err = h.conn.Close() // the MultiConn closes the room's Conn and the socket
	}
	if rerr := h.room.Close(); rerr != nil && !errors.Is(rerr, transport.ErrClosed) && err == nil {
		err = rerr
	}
	return err
}

// RoomConn is a player's Conn to a room's host over a WebRTC data channel
// (RemoteAddr is the host). Close leaves the room too.
type RoomConn struct {
	*webrtc.Peer
	p *relay.RoomPlayer
}

// DialRoom joins the room code at the relay relayURL and returns once the
// data channel to the host is open. The relay's refusals come back as
// errors wrapping relay.ErrNoRoom, relay.ErrRoomFull, relay.ErrRoomEnded
// and the like.
func DialRoom(ctx context.Context, relayURL, code string, cfg webrtc.Config) (*RoomConn, error) {
	p, err := relay.JoinRoom(ctx, relay.JoinOptions{URL: relayURL, Code: code, WebRTC: cfg})
	if err != nil {
		return nil, fmt.Errorf("rewind: join room: %w", err)
	}
	return &RoomConn{Peer: p.Conn(), p: p}, nil
}

// Player returns the relay's side of the player (its id, the room's code,
// why the relay connection ended).
func (c *RoomConn) Player() *relay.RoomPlayer { return c.p }

// Close leaves the room and closes the data channel.
func (c *RoomConn) Close() error { return c.p.Close() }

// RoomOptions configures a session that joins a room by its code.
type RoomOptions struct {
	Options
	// WebRTC configures the player's transport (the relay adds its TURN
	// server, and loopback mode when it is on a loopback address).
	WebRTC webrtc.Config
}

// JoinRoom joins the room code at the relay relayURL (see DialRoom), then
// starts a session of g as a client of the room's host (see Connect). The
// session owns the connection: Close says bye and leaves the room.
func JoinRoom[I any](ctx context.Context, g Game[I], relayURL, code string, opts RoomOptions) (*Session[I], error) {
	conn, err := DialRoom(ctx, relayURL, code, opts.WebRTC)
	if err != nil {
		return nil, err
	}
	s, err := Connect(g, conn, opts.Options)
	if err != nil {
		conn.Close()
		return nil, err
	}
	s.ownConn = true
	return s, nil
}
