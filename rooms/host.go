package rooms

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
	"github.com/rewindnet/rewind/transport/webrtc"
	"github.com/rewindnet/rewind/world"
)

// HostOptions configures a match hosted in a room of a rooms relay.
// Relay is required; the rest may be zero.
type HostOptions struct {
	// Relay is the relay's WebSocket URL, as `rewind relay` prints it
	// (e.g. "ws://127.0.0.1:8080/rooms").
	Relay string
	// Relays are more relays of the same fleet (relays sharing Redis),
	// tried in turn after Relay for the registration: the room is hosted
	// at the first that answers (Room().URL()). With HostMigration, a
	// dropped relay connection (the relay died) is followed by claims of
	// the room through the relays of the list, the others first, until
	// one hosts it again (reclaim.go); without it, the room is not
	// registered again (the players play on, no one new can join by the
	// code): for a room registered again without host migration, as
	// `rewind serve --relay URL1,URL2` does, use Serve (Rooms: 1,
	// ServeOptions.Reconnect) instead. Default: none.
	Relays []string
	// Code proposes the room's code; empty lets the relay pick one.
	Code string
	// Server configures each match. Its MaxPlayers also caps the room at
	// the relay.
	Server server.Config
	// WebRTC configures the host's WebRTC transport (the relay adds its
	// TURN server, and loopback mode when it is on a loopback address).
	WebRTC webrtc.Config
	// UDP, if set, also hosts the match on a UDP socket at this address
	// ("127.0.0.1:0" picks a free port; Host.UDPAddr says which), so that
	// players may connect directly (`rewind play --connect`) as well as
	// by the room code.
	UDP string
	// UDPConfig configures that socket; its IdleTimeout defaults to
	// Server.PlayerTimeout.
	UDPConfig udp.Config
	// Extra are more server-side Conns the match also runs over, after the
	// WebRTC host and the UDP socket in the transport.MultiConn (e.g. a
	// package gateway's Conn: JSON players in the same match). The Host
	// owns them.
	Extra []transport.Conn
	// HostMigration lets the match go on at one of its players' machines
	// when this host goes (crashes, hangs or closes): the relay keeps the
	// room for them, the server sends them the handover data, and Close
	// says the match goes on elsewhere. Off by default: a relay in this
	// very process would go with the host, and the players would have
	// nowhere to meet again.
	HostMigration bool
	// Log, if set, gets the host's events (see rewind.HostOptions.Log),
	// players' data channels opening and closing, and the relay
	// connection ending.
	Log *slog.Logger
}

// Hosted is a match hosted in a room of a rooms relay: a rewind.Host (Run,
// Update, Stats, UDPAddr and the rest are its) over the room's WebRTC
// host, or over a transport.MultiConn of it (member 0) and a UDP socket
// (member 1) with HostOptions.UDP, plus the room: its code, End, and the
// relay's side (Room). Players join by the code over WebRTC data channels
// (and connect over UDP with HostOptions.UDP): one match takes both.
// HostStats.Peers counts the open data channels.
//
// Match traffic goes straight between the players and the host: if the
// relay connection ends (Room().Done), players already in keep playing,
// but no new player can find the room; the host logs it. With
// HostOptions.HostMigration the match outlives this host: its players
// move to one of them (docs/rooms.md, "Host migration").
type Hosted[I any] struct {
	*rewind.Host[I]
	room   *roomclient.HostedRoom
	relays []string // Relay and Relays: where the room is claimed back (reclaim.go)
	again  bool     // HostMigration: claim the room back when its relay connection drops

	ended     <-chan string // the reason of the relay's "ended"
	stop      chan struct{} // closed by Close: the relay watch ends
	watched   chan struct{} // closed when the relay watch has ended
	closeOnce sync.Once
	err       error
}

// relayConn is a WebRTC host as a match's Conn: closing it closes leave,
// the registration with the relay that the host serves (a room, which
// ends, or a match server's rooms), which closes the WebRTC host.
type relayConn struct {
	*webrtc.Host
	leave io.Closer
}

// Close implements transport.Conn.
func (c relayConn) Close() error {
	if err := c.leave.Close(); err != nil && !errors.Is(err, transport.ErrClosed) {
		return err
	}
	return nil
}

// Host registers a room with the relay at opts.Relay and hosts matches of
// g in it. It returns once the relay has given the room its code (Code).
// ctx bounds the registration only.
func Host[I any](ctx context.Context, g rewind.Game[I], opts HostOptions) (*Hosted[I], error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Server.Schema == nil {
		// Registered here once, so that the relay hears the match's
		// MaxPlayers and the Host does not register the game again.
		schema, err := register(g)
		if err != nil {
			return nil, err
		}
		opts.Server.Schema = schema
	}
	ended := make(chan string, 1) // the relay's "ended" (watchRelay)
	room, err := roomclient.HostRoom(ctx, roomclient.HostOptions{
		URL:         opts.Relay,
		URLs:        opts.Relays,
		Code:        opts.Code,
		MaxPlayers:  opts.Server.MaxPlayers,
		Migrate:     opts.HostMigration,
		WebRTC:      opts.WebRTC,
		OnPeerOpen:  func(a transport.Addr) { log.Info("data channel open", "peer", string(a)) },
		OnPeerClose: func(a transport.Addr) { log.Info("data channel closed", "peer", string(a)) },
		OnEnded: func(reason string) {
			select {
			case ended <- reason:
			default:
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("rooms: host: %w", err)
	}
	var conn transport.Conn = relayConn{Host: room.Conn(), leave: room}
	if opts.HostMigration {
		opts.Server.HostMigration = true
		opts.Server.Room = server.Room{Code: room.Code(), Key: room.Key()}
	}
	hopts := rewind.HostOptions{Server: opts.Server, UDP: opts.UDPConfig, Log: log}
	members := []transport.Conn{conn}
	if opts.UDP != "" {
		sock, err := listenUDP(opts.UDP, hopts)
		if err != nil {
			conn.Close()
			closeAll(opts.Extra)
			return nil, fmt.Errorf("rooms: host: %w", err)
		}
		members = append(members, sock)
	}
	members = append(members, opts.Extra...)
	if len(members) > 1 {
		multi, err := transport.NewMulti(members...)
		if err != nil { // a Conn that is not server-side
			closeAll(members)
			return nil, fmt.Errorf("rooms: host: %w", err)
		}
		conn = multi
	}
	host, err := rewind.NewHost(g, conn, hopts) // closes conn if it fails
	if err != nil {
		return nil, err
	}
	if opts.HostMigration {
		host.SetGoodbye(codec.ReasonMigrate)
	}
	h := &Hosted[I]{Host: host, room: room, relays: append([]string{opts.Relay}, opts.Relays...), again: opts.HostMigration, ended: ended,
		stop: make(chan struct{}), watched: make(chan struct{})}
	args := []any{"room", room.Code(), "relay", room.URL(), "tick_rate", game.RateOf(g),
		"start_players", max(opts.Server.StartPlayers, 1)}
	if a, ok := host.UDPAddr(); ok {
		args = append(args, "udp", a.String())
	}
	log.Info("room hosted", args...)
	go h.watchRelay(log)
	if opts.HostMigration {
		go rotateKeys(room, host.Departures, host.SetRoomKey, h.stop, log) // rekey.go
	}
	return h, nil
}

// closeAll closes every Conn of cs.
func closeAll(cs []transport.Conn) {
	for _, c := range cs {
		c.Close()
	}
}

// register registers g's schema, as rewind.NewHost would.
func register[I any](g rewind.Game[I]) (*world.Schema, error) {
	schema := world.NewSchema()
	if err := g.Register(schema); err != nil {
		return nil, fmt.Errorf("rooms: register: %w", err)
	}
	return schema, nil
}

// listenUDP opens the UDP socket of a room hosted on UDP too, its idle
// timeout defaulting to the server's player timeout (as rewind.HostUDP's).
func listenUDP(addr string, opts rewind.HostOptions) (*udp.Server, error) {
	ucfg := opts.UDP
	if ucfg.IdleTimeout <= 0 && opts.Server.PlayerTimeout > 0 {
		ucfg.IdleTimeout = opts.Server.PlayerTimeout
	}
	ucfg.ProveExplicitly = true // the match proves the players it admits
	return udp.Listen(addr, ucfg)
}

// watchRelay logs the relay connection's end, unless Close comes first.
// A room the relay's operator ended (its "ended" reason begins with
// roomproto.EndedByOperator) ends its match for the operator too
// (rewind.Host.EndMatch: the players hear codec.ReasonOperator);
// otherwise the players play on.
func (h *Hosted[I]) watchRelay(log *slog.Logger) {
	defer close(h.watched)
	for {
		select {
		case why := <-h.ended:
			if !strings.HasPrefix(why, roomproto.EndedByOperator) {
				continue
			}
			log.Info("room ended by the relay's operator: the match ends", "room", h.room.Code(), "reason", why)
			if err := h.Host.EndMatch(); err != nil {
				log.Warn("ending the match", "room", h.room.Code(), "err", err)
			}
		case <-h.room.Done():
			if !h.again {
				log.Warn("relay connection ended: players in the match play on, new ones cannot join by code",
					"room", h.room.Code(), "err", h.room.Err())
				return
			}
			log.Warn("relay connection ended: players in the match play on; claiming the room back through the relay list",
				"room", h.room.Code(), "relay", h.room.URL(), "err", h.room.Err())
			if !h.reclaim(log) {
				return
			}
		case <-h.stop:
			return
		}
	}
}

// Code is the room's code: players join with it.
func (h *Hosted[I]) Code() string { return h.room.Code() }

// Relay is the relay's URL the room is registered at (another of
// HostOptions.Relays once the room was claimed back there).
func (h *Hosted[I]) Relay() string { return h.room.URL() }

// Room returns the relay's side of the room (its key, its Done channel).
func (h *Hosted[I]) Room() *roomclient.HostedRoom { return h.room }

// End tells the relay the match is over (players coming with the code are
// told it ended, for the relay's memory span, 5 minutes), then ends the
// match for the players in it (rewind.Host.End): each is sent every tick
// up to the last, then a goodbye that says the match ended, bounded by
// the server's Linger; until then, or until ctx is done. Call it after Run
// has returned, before Close.
func (h *Hosted[I]) End(ctx context.Context) error {
	h.Host.SetGoodbye(codec.ReasonEnded)
	h.room.End()
	return h.Host.End(ctx)
}

// Close says goodbye to every player (see rewind.Host.Close), leaves the
// relay (which ends the room) and closes the transports; players' clients
// see the session end.
func (h *Hosted[I]) Close() error {
	h.closeOnce.Do(func() {
		close(h.stop)
		<-h.watched
		h.err = h.Host.Close()
	})
	return h.err
}
