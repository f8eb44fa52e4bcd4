package roomclient

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// HostOptions says how to host a room through a relay.
type HostOptions struct {
	// URL is the relay's WebSocket URL, e.g. "ws://127.0.0.1:8080/rooms".
	URL string
	// URLs are more relays of the same fleet, tried in turn after URL
	// for the registration as JoinOptions.URLs are (the room is hosted
	// at the first that answers: URL says which). Default: none.
	URLs []string
	// TryTimeout bounds each try but the last when URLs is set, as
	// JoinOptions.TryTimeout does (default DefaultTryTimeout).
	TryTimeout time.Duration
	// Code proposes a room code; empty lets the relay pick one. A taken
	// code fails with roomproto.ErrCodeTaken.
	Code string
	// MaxPlayers asks the relay to cap the room (0: the relay's cap).
	MaxPlayers int
	// Migrate asks the relay to keep the room for its players when this
	// host vanishes (host migration: relay/migrate.go), instead of
	// forgetting it.
	Migrate bool
	// WebRTC configures the host's transport; the relay's TURN server is
	// added to its ICE servers, and Loopback is turned on when the relay is
	// on a loopback address.
	WebRTC webrtc.Config
	// OnPlayer and OnLeft, if set, are told when a player joins the room
	// (before its data channel opens) and when its relay connection closes.
	OnPlayer, OnLeft func(id string)
	// OnPeerOpen and OnPeerClose, if set, are told when a player's data
	// channel opens on the host's Conn and when it closes or fails
	// (webrtc.Host's hooks; called from pion's goroutines).
	OnPeerOpen, OnPeerClose func(transport.Addr)
	// OnEnded, if set, is told the reason when the relay says the room
	// ended (its "ended": the key's end, or the relay's operator, whose
	// reason begins with roomproto.EndedByOperator); the relay
	// connection may stay open a while after.
	OnEnded func(reason string)
}

// HostedRoom is a hosted room: its code and key, and the host's transport.Conn
// that takes every player who joins by the code. Players appear on the Conn
// as webrtc.PeerAddr(id) once their data channel opens.
type HostedRoom struct {
	conn *webrtc.Host
	code string
	end  roomEnd
	// rekeyed takes the relay's "rekeyed" answers (host_rekey.go).
	rekeyed chan string

	mu     sync.Mutex
	rc     *roomClient // the relay connection: another after Reclaim
	opts   HostOptions // opts.URL: the relay that hosts the room
	closed bool        // Close was called: Reclaim keeps nothing
	gen    int         // how many times Reclaim replaced rc
	key    string      // the room's key: another after Rekey
}

// HostRoom registers a room with the relay and returns once the relay has
// given it a code. The room lives until End, Close, or the relay loses the
// host.
func HostRoom(ctx context.Context, opts HostOptions) (*HostedRoom, error) {
	h := &HostedRoom{opts: opts}
	r, err := reach(ctx, relayList(opts.URL, opts.URLs), opts.TryTimeout,
		&roomproto.Msg{Type: roomproto.MsgHost, V: roomproto.V1, Code: opts.Code, MaxPlayers: opts.MaxPlayers, Migrate: opts.Migrate},
		roomproto.MsgHosted, h.handle)
	if err != nil {
		return nil, fmt.Errorf("relay: hosting: %w", err)
	}
	h.opts.URL, h.opts.URLs = r.url, nil
	if err := h.start(r.rc, r.first, r.start); err != nil {
		return nil, err
	}
	return h, nil
}

// start sets the hosted room up from the relay's "hosted" answer m (to a
// host or to a claim) and lets the reader hand it the later messages.
func (h *HostedRoom) start(rc *roomClient, m roomproto.Msg, start func()) error {
	opts := h.opts
	h.rc = rc // before the reader hands handle a message (start)
	h.code, h.key = m.Code, m.Key
	h.rekeyed = make(chan string, 1)
	var err error
	h.conn, err = webrtc.NewHost(webrtcConfig(opts.WebRTC, opts.URL, m.ICE))
	if err != nil {
		rc.close()
		return err
	}
	h.conn.OnPeerOpen, h.conn.OnPeerClose = opts.OnPeerOpen, opts.OnPeerClose
	start() // the reader only calls handle from now on
	return nil
}

// client returns the relay connection.
func (h *HostedRoom) client() *roomClient {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rc
}

// handle runs on the reader goroutine for every message after "hosted".
func (h *HostedRoom) handle(m roomproto.Msg) { h.handleAt(0, m) }

// peerID is the host's name (webrtc.PeerAddr) of the relay's player id,
// met on the room's relay connection gen: the relay that took the room
// back (Reclaim, gen 1, 2, ...) numbers its players from p1 again, so
// they are told apart from the players who joined before ("p1@1").
func peerID(gen int, id string) string {
	if gen > 0 && id != "" {
		id += "@" + strconv.Itoa(gen)
	}
	return id
}

// handleAt handles message m of the room's relay connection gen.
func (h *HostedRoom) handleAt(gen int, m roomproto.Msg) {
	rc := h.client()
	switch m.Type {
	case roomproto.MsgPing:
		rc.send(&roomproto.Msg{Type: roomproto.MsgPong, N: m.N})
	case roomproto.MsgPlayer:
		if h.opts.OnPlayer != nil {
			h.opts.OnPlayer(peerID(gen, m.ID))
		}
	case roomproto.MsgSignal:
		if m.Signal == nil {
			return
		}
		to := m.From
		_ = h.conn.HandleSignal(peerID(gen, to), *m.Signal, func(s webrtc.Signal) {
			rc.send(&roomproto.Msg{Type: roomproto.MsgSignal, To: to, Signal: &s})
		}) // a player's bad signal fails its own connection only
	case roomproto.MsgICE: // fresh TURN credentials, for the players to come
		h.mu.Lock()
		cfg := webrtcConfig(h.opts.WebRTC, h.opts.URL, m.ICE)
		h.mu.Unlock()
		h.conn.SetICEServers(cfg.ICEServers)
	case roomproto.MsgLeft:
		h.conn.RemovePeer(peerID(gen, m.ID))
		if h.opts.OnLeft != nil {
			h.opts.OnLeft(peerID(gen, m.ID))
		}
	case roomproto.MsgRekeyed:
		select {
		case h.rekeyed <- m.Key:
		default: // nobody waits: a stale answer
		}
	case roomproto.MsgEnded:
		h.end.set(fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Reason))
		if h.opts.OnEnded != nil {
			h.opts.OnEnded(m.Reason)
		}
	case roomproto.MsgError:
		if m.Error == roomproto.ErrCodeNoPlayer {
			return // the player left while we answered it
		}
		h.end.set(&roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason})
	}
}

// URL is the relay that hosts the room (HostOptions.URL, or one of URLs;
// after Reclaim, the relay that took the claim).
func (h *HostedRoom) URL() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.opts.URL
}

// Code is the room's code, which players join by.
func (h *HostedRoom) Code() string { return h.code }

// Key is the room's 128-bit key (32 hex digits): it proves ownership, e.g.
// to end the room from another connection. Rekey changes it.
func (h *HostedRoom) Key() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.key
}

// Conn is the host's transport: one Conn for every player in the room.
func (h *HostedRoom) Conn() *webrtc.Host { return h.conn }

// Done is closed when the relay connection ends (Err says why). The Conn
// keeps working for players already connected: match traffic does not go
// through the relay.
// (After Reclaim, Done is the new connection's.)
func (h *HostedRoom) Done() <-chan struct{} { return h.client().done }

// Err says why the room or the relay connection ended, or nil.
func (h *HostedRoom) Err() error { return h.end.err(h.client()) }

// End tells the relay the match ended: players coming back with the code
// are told so for the relay's memory span (5 minutes).
func (h *HostedRoom) End() {
	h.client().send(&roomproto.Msg{Type: roomproto.MsgEnd, Code: h.code, Key: h.Key()})
}

// Close leaves the relay (which ends the room) and closes the transport.
func (h *HostedRoom) Close() error {
	h.mu.Lock()
	h.closed = true
	rc := h.rc
	h.mu.Unlock()
	rc.close()
	return h.conn.Close()
}
