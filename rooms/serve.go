package rooms

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/relay/roomclient"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// ServeOptions configures a match server: many matches in rooms of a
// relay, through one relay connection. Relay is required; the rest may
// be zero.
type ServeOptions struct {
	// Relay is the relay's WebSocket URL, as `rewind relay` prints it.
	Relay string
	// Relays are more relays of the same fleet (relays sharing Redis),
	// tried in turn after Relay when the relay connection drops (with
	// Reconnect).
	Relays []string
	// Reconnect, if positive, is how long the server keeps trying to
	// reach a relay of Relay and Relays after its relay connection
	// dropped (its relay died): registered again, it claims its rooms
	// back under the same codes, so players can join and rejoin them
	// again (roomclient.ServeOptions.Reconnect). Zero: a dropped relay
	// connection is final (players in the matches play on, new ones
	// cannot join by code).
	Reconnect time.Duration
	// Rooms is how many rooms Serve opens at start (Codes proposes their
	// codes, in order; the relay draws the others).
	Rooms int
	// Codes proposes codes for the first rooms opened at start.
	Codes []string
	// MaxMatches caps the rooms open at once, each with its match: the
	// slots the server registers with the relay (default Rooms, or 64
	// with OnDemand; at least Rooms).
	MaxMatches int
	// Workers is how many goroutines run the matches' updates (default
	// one per core), however many matches there are.
	Workers int
	// TickPhases is host.Options.TickPhases (default 8).
	TickPhases int
	// OnDemand lets the relay open rooms here when lobbies ask for one
	// (roomclient.OpenRoom, `rewind open`), while slots are free. It also
	// frees a room's slot when its match ends (its last player left):
	// the relay then remembers the code as ended.
	OnDemand bool
	// UnusedTimeout ends a room opened on demand (OnDemand) that saw no
	// real play for it, freeing its slot here and at the relay (default
	// 2 minutes; negative: never): real play is a match of UnusedPlayers
	// players or more, one of whose inputs changed. A room whose match
	// never started, whether players joined it at the relay or not, and
	// one whose players are idle (their inputs do not change: issue 43's
	// hoard of one idle player a room) both end. Rooms opened at start
	// (Rooms, AddRoom) are not affected.
	UnusedTimeout time.Duration
	// UnusedPlayers is how many players a match of a room opened on
	// demand needs for its play to count as real (UnusedTimeout;
	// default 1).
	UnusedPlayers int
	// PlayersPerAddr caps the players (UDP sessions) one IP address
	// (IPv6: one /64) holds across every room of the server at once
	// (host.Options.PeersPerAddr; default 8 with OnDemand, none
	// without; negative: none).
	PlayersPerAddr int
	// ServerToken is the relay's server token, if it has one
	// (roomclient.ServeOptions.ServerToken).
	ServerToken []byte
	// Server configures each match. Its MaxPlayers also caps each room at
	// the relay.
	Server server.Config
	// WebRTC configures the one WebRTC host of every room (one UDP port).
	WebRTC webrtc.Config
	// UDP, if set, also takes players on a UDP socket at this address
	// ("127.0.0.1:0" picks a free port; UDPAddr says which), one port for
	// every match, as host.ListenUDP's: a player there picks its
	// room by the code in its hello (rewind play --connect HOST:PORT
	// --room CODE), and plays in the same match as the room's WebRTC
	// players.
	UDP string
	// UDPConfig configures that socket (its defaults as host.ListenUDP's).
	UDPConfig udp.Config
	// Log, if set, gets the matches' events (each room's lines carry
	// room=CODE), players' data channels opening and closing, and the
	// relay connection ending.
	Log *slog.Logger
}

// DefaultPlayersPerAddr is ServeOptions.PlayersPerAddr's default with
// OnDemand.
const DefaultPlayersPerAddr = 8

// playersPerAddr is opts.PlayersPerAddr as host.Options takes it.
func playersPerAddr(opts ServeOptions) int {
	switch {
	case opts.PlayersPerAddr < 0:
		return 0
	case opts.PlayersPerAddr == 0 && opts.OnDemand:
		return DefaultPlayersPerAddr
	}
	return opts.PlayersPerAddr
}

// Served is a match server: a host.Multi (Run, Open, CloseRoom,
// Stats, Rooms and the rest are its) whose rooms are rooms of a relay,
// registered through one relay connection, with one WebRTC host (one UDP
// port) for every player of every room. A player's datagrams go to the
// match of the room it joined at the relay (roomclient.RoomOfPeer); matches
// run on the host.Multi's workers, not a goroutine each. A room the relay
// ends (its key's end, unused after being opened on demand) closes here;
// a room that closes here (CloseRoom, a finished match with OnDemand,
// Close) is ended at the relay, freeing its slot there.
type Served[I any] struct {
	*host.Multi[I]
	relay *roomclient.ServedRooms
	codes []string
	log   *slog.Logger

	unused unusedRooms // rooms opened on demand, until their match starts (unused.go)

	closeOnce sync.Once
	err       error
}

// Serve registers a match server with the relay at opts.Relay, opens
// opts.Rooms rooms in it, and returns once the relay has given each its
// code (Codes). ctx bounds the registration only. Run drives the
// matches.
func Serve[I any](ctx context.Context, g rewind.Game[I], opts ServeOptions) (*Served[I], error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	slots, err := serveSlots(opts)
	if err != nil {
		return nil, err
	}
	if opts.Server.Schema == nil {
		schema, err := register(g)
		if err != nil {
			return nil, err
		}
		opts.Server.Schema = schema
	}
	s := &Served[I]{log: log}
	s.unused.timeout = opts.UnusedTimeout
	if s.unused.timeout == 0 {
		s.unused.timeout = DefaultUnusedTimeout
	}
	s.unused.minPlayers = max(opts.UnusedPlayers, 1)
	ready := make(chan struct{}) // the host.Multi exists (or Serve failed)
	sr, err := roomclient.ServeRooms(ctx, s.relayOptions(opts, slots, ready))
	if err != nil {
		close(ready)
		return nil, fmt.Errorf("rooms: serve: %w", err)
	}
	s.relay = sr
	conn, roomOf, err := serveConn(sr, slots, opts)
	if err != nil {
		close(ready)
		return nil, err
	}
	mh, err := host.NewMulti(g, conn, host.Options{
		HostOptions:  rewind.HostOptions{Server: opts.Server, Log: log},
		MaxMatches:   min(slots, sr.Slots()),
		Workers:      opts.Workers,
		TickPhases:   opts.TickPhases,
		FreeEnded:    opts.OnDemand,
		PeersPerAddr: playersPerAddr(opts),
		RoomOf:       roomOf,
		OnClose:      sr.End,
	}) // closes the conn if it fails
	if err != nil {
		close(ready)
		return nil, err
	}
	s.Multi = mh
	close(ready)
	if err := s.openRooms(ctx, opts); err != nil {
		mh.Close()
		return nil, err
	}
	log.Info("serving rooms", "relay", opts.Relay, "rooms", len(s.codes), "slots", sr.Slots(),
		"on_demand", opts.OnDemand, "webrtc_udp", fmt.Sprint(sr.Conn().UDPAddr()))
	return s, nil
}

// serveSlots is the most matches the server hosts: opts.MaxMatches, or
// by default opts.Rooms (at least 1; 64 when on demand).
func serveSlots(opts ServeOptions) (int, error) {
	slots := opts.MaxMatches
	if slots <= 0 {
		slots = max(opts.Rooms, 1)
		if opts.OnDemand {
			slots = max(opts.Rooms, 64)
		}
	}
	if opts.Rooms > slots {
		return 0, fmt.Errorf("rooms: serve: %d rooms over %d matches at most: %w", opts.Rooms, slots, host.ErrTooManyMatches)
	}
	return slots, nil
}

// relayOptions is how s registers with the relay: its callbacks open a
// room's match when the relay opens one on demand (noting it unused),
// close it when the relay ends it, and log the peers and the relay
// connection. They wait for ready, closed once s.Multi is set (or Serve
// failed).
func (s *Served[I]) relayOptions(opts ServeOptions, slots int, ready chan struct{}) roomclient.ServeOptions {
	log := s.log
	multi := func() *host.Multi[I] {
		<-ready
		return s.Multi
	}
	return roomclient.ServeOptions{
		URL: opts.Relay, Slots: slots, OnDemand: opts.OnDemand, ServerToken: opts.ServerToken, MaxPlayers: opts.Server.MaxPlayers, WebRTC: opts.WebRTC,
		OnOpen: func(code string) error {
			h := multi()
			if h == nil {
				return rewind.ErrClosed
			}
			if _, err := h.Open(code); err != nil {
				return err
			}
			s.unused.add(code, time.Now())
			return nil
		},
		OnEnded: func(code, reason string) {
			// Ended on purpose at the relay: by its operator (the
			// players are told so), or by the room's key.
			why := codec.ReasonEnded
			if strings.HasPrefix(reason, roomproto.EndedByOperator) {
				why = codec.ReasonOperator
			}
			if h := multi(); h != nil && h.EndRoom(code, why) == nil {
				log.Info("room ended at the relay", "room", code, "reason", reason)
			}
		},
		OnPeerOpen:  func(a transport.Addr) { log.Info("data channel open", "peer", string(a)) },
		OnPeerClose: func(a transport.Addr) { log.Info("data channel closed", "peer", string(a)) },
		URLs:        opts.Relays, Reconnect: opts.Reconnect,
		OnLost: func(err error) {
			log.Warn("relay connection lost: players in the matches play on", "err", err, "reconnect", opts.Reconnect)
		},
		OnReconnected: func(url string) { log.Info("registered again: claiming the rooms back", "relay", url) },
	}
}

// openRooms opens opts.Rooms rooms, the i-th with opts.Codes[i] if
// given, and notes their codes.
func (s *Served[I]) openRooms(ctx context.Context, opts ServeOptions) error {
	for i := range opts.Rooms {
		want := ""
		if i < len(opts.Codes) {
			want = opts.Codes[i]
		}
		code, err := s.AddRoom(ctx, want)
		if err != nil {
			return fmt.Errorf("rooms: serve: room %d: %w", i+1, err)
		}
		s.codes = append(s.codes, code)
	}
	return nil
}

// serveConn returns the Conn of a match server's matches: the relay
// connection's WebRTC host, or with opts.UDP a transport.MultiConn of it
// (member 0) and a UDP socket (member 1); and the RoomOf that names the
// room of a WebRTC player's address (a UDP player's hello names it). It
// closes sr if it fails.
func serveConn(sr *roomclient.ServedRooms, slots int, opts ServeOptions) (transport.Conn, func(transport.Addr) string, error) {
	var conn transport.Conn = relayConn{Host: sr.Conn(), leave: sr}
	if opts.UDP == "" {
		return conn, roomclient.RoomOfPeer, nil
	}
	ucfg := opts.UDPConfig
	if ucfg.MaxSessions <= 0 {
		ucfg.MaxSessions = max(1024, slots*max(opts.Server.MaxPlayers, 16))
	}
	if ucfg.QueueLen <= 0 {
		ucfg.QueueLen = max(1024, 16*slots)
	}
	sock, err := listenUDP(opts.UDP, rewind.HostOptions{Server: opts.Server, UDP: ucfg})
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("rooms: serve: %w", err)
	}
	multi, err := transport.NewMulti(conn, sock)
	if err != nil {
		conn.Close()
		sock.Close()
		return nil, nil, fmt.Errorf("rooms: serve: %w", err)
	}
	return multi, func(a transport.Addr) string {
		if i, inner, ok := transport.SplitMultiAddr(a); ok && i == 0 {
			return roomclient.RoomOfPeer(inner)
		}
		return ""
	}, nil
}

// AddRoom registers one more room with the relay (code if given, else
// one the relay draws) and opens its match; it returns the code. It fails
// with the relay's error (roomproto.ErrFull when every slot is in use,
// roomproto.ErrCodeTaken, ...) or the host.Multi's.
func (s *Served[I]) AddRoom(ctx context.Context, code string) (string, error) {
	code, err := s.relay.Host(ctx, code)
	if err != nil {
		return "", err
	}
	if _, err := s.Multi.Open(code); err != nil {
		s.relay.End(code)
		return "", err
	}
	return code, nil
}

// Codes returns the codes of the rooms opened at start, in order.
func (s *Served[I]) Codes() []string { return s.codes }

// Relay returns the relay connection (its slots, keys, Done channel).
func (s *Served[I]) Relay() *roomclient.ServedRooms { return s.relay }

// Run drives every match until ctx is done (see host.Multi.Run),
// and logs the relay connection's end for good (with Reconnect, once no
// relay answered for that long) if it comes first: players in the
// matches play on, new ones cannot join by code.
func (s *Served[I]) Run(ctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	go s.sweepUnused(done)
	go func() {
		select {
		case <-s.relay.Done():
			s.log.Warn("relay connection ended for good: players in the matches play on, new ones cannot join by code",
				"err", s.relay.Err())
		case <-done:
		}
	}()
	return s.Multi.Run(ctx)
}

// Close says goodbye to the players of every match, ends every room at
// the relay, leaves it and closes the WebRTC host.
func (s *Served[I]) Close() error {
	s.closeOnce.Do(func() { s.err = s.Multi.Close() })
	return s.err
}
