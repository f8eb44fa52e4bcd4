package roomclient

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// ServeOptions says how a match server hosts many rooms through one relay
// connection (protocol version 2; see ServeRooms).
type ServeOptions struct {
	// URL is the relay's WebSocket URL, e.g. "ws://127.0.0.1:8080/rooms".
	URL string
	// Slots is how many rooms the server holds at once (required: at
	// least 1; the relay may cap it, Slots says the figure granted).
	Slots int
	// OnDemand lets the relay open rooms here when lobbies ask for one
	// (OpenRoom): each is offered to OnOpen.
	OnDemand bool
	// MaxPlayers asks the relay to cap each room (0: the relay's cap).
	MaxPlayers int
	// ServerToken, if set, is the relay's server token
	// (relay.RoomConfig.ServerToken): the registration proves it
	// (roomproto.ServerProof over the connection's nonce) without
	// sending it. A relay with a token refuses a server without it
	// (roomproto.ErrUnauthorized).
	ServerToken []byte
	// WebRTC configures the one transport of every room; the relay's TURN
	// server is added to its ICE servers, and Loopback is turned on when
	// the relay is on a loopback address.
	WebRTC webrtc.Config
	// OnOpen is asked to open the room code the relay opens on demand; an
	// error refuses it (the lobby is told "full" with its text). It runs
	// on the connection's reader goroutine: it must not block for long.
	OnOpen func(code string) error
	// OnEnded, if set, is told that a room ended at the relay (its end,
	// an unused room opened on demand, a refused open), with the reason.
	OnEnded func(code, reason string)
	// OnPlayer and OnLeft, if set, are told when a player joins a room
	// (before its data channel opens) and when its relay connection
	// closes.
	OnPlayer, OnLeft func(code, id string)
	// OnPeerOpen and OnPeerClose, if set, are told when a player's data
	// channel opens on the Conn and when it closes or fails.
	OnPeerOpen, OnPeerClose func(transport.Addr)

	// URLs are more relays of the same fleet (relays sharing Redis),
	// tried in turn after URL when the relay connection drops (with
	// Reconnect): the server registers again at the first that answers
	// and claims its rooms back there, under the same codes.
	URLs []string
	// Reconnect, if positive, is how long the server keeps trying to
	// reach a relay (URL, then URLs, in turn, and again) after its relay
	// connection dropped before it gives up (Done). Zero: a dropped
	// connection is final, as before. Players connected keep playing
	// either way (their data channels do not pass through the relay);
	// while no relay holds a room, new players cannot join it.
	Reconnect time.Duration
	// ReconnectWait is the first wait between rounds of tries and
	// between claims of a room the fleet does not let go yet (default
	// 100 ms, doubling up to 2 s).
	ReconnectWait time.Duration
	// OnLost, if set, is told that the relay connection dropped (with
	// why), and OnReconnected that the server registered again at url.
	OnLost        func(err error)
	OnReconnected func(url string)
}

// ServedRooms is a match server's relay connection: many rooms, one
// WebSocket, and one WebRTC host (one UDP port) for every player of
// every room. A player appears on the Conn as RoomPeerAddr(code, id), so
// RoomOfPeer names the room a datagram belongs to.
type ServedRooms struct {
	conn  *webrtc.Host
	opts  ServeOptions
	slots int
	end   roomEnd
	done  chan struct{} // closed when the relay connection ends for good
	stop  chan struct{} // closed by Close
	retry chan struct{} // a room's claim is to be tried again (reconnect.go)
	wg    sync.WaitGroup

	mu      sync.Mutex
	rc      *roomClient       // the relay connection, the latest one
	gen     int               // connections before rc (reconnect.go)
	url     string            // rc's relay
	closed  bool              // Close was called
	keys    map[string]string // code → key of the rooms held
	hosts   []*hostWait       // Host calls waiting for their answer, in order
	claims  []string          // rooms claimed back, waiting for their answer, in order
	retries map[string]bool   // rooms whose claim is to be tried again
}

// hostWait is a Host call waiting for the relay's answer.
type hostWait struct {
	reply     chan roomproto.Msg
	abandoned bool // the caller gave up: a late "hosted" is ended
}

// ServeRooms registers a match server with the relay (protocol version
// 2) and returns once the relay took it. It hosts no room yet: Host
// registers one, and with OnDemand the relay opens them through OnOpen.
// A relay of version 1 refuses it (roomproto.ErrBadMessage).
func ServeRooms(ctx context.Context, opts ServeOptions) (*ServedRooms, error) {
	if opts.Slots <= 0 {
		return nil, fmt.Errorf("relay: serve: %w: %d slots", roomproto.ErrBadMessage, opts.Slots)
	}
	s := &ServedRooms{opts: opts, keys: make(map[string]string), done: make(chan struct{}),
		stop: make(chan struct{}), retry: make(chan struct{}, 1), retries: make(map[string]bool)}
	rc, m, start, err := s.register(ctx, opts.URL, 0)
	if err != nil {
		return nil, err
	}
	s.rc, s.url = rc, opts.URL
	s.slots = m.Slots
	s.conn, err = webrtc.NewHost(webrtcConfig(opts.WebRTC, opts.URL, m.ICE))
	if err != nil {
		rc.close()
		return nil, err
	}
	s.conn.OnPeerOpen, s.conn.OnPeerClose = opts.OnPeerOpen, opts.OnPeerClose
	start()
	s.wg.Add(1)
	go s.keep() // reconnect.go
	return s, nil
}

// register dials the relay at url and registers the server there
// ("serve"); the connection's messages go to handle once start is
// called. gen numbers the connection (peer names, peerName).
func (s *ServedRooms) register(ctx context.Context, url string, gen int) (*roomClient, roomproto.Msg, func(), error) {
	var rc *roomClient
	rc, replies, start, err := dialRoomGated(ctx, url, func(m roomproto.Msg) { s.handle(rc, gen, m) })
	if err != nil {
		return nil, roomproto.Msg{}, nil, err
	}
	serve := &roomproto.Msg{Type: roomproto.MsgServe, V: roomproto.Version, Slots: s.opts.Slots, OnDemand: s.opts.OnDemand, MaxPlayers: s.opts.MaxPlayers}
	if len(s.opts.ServerToken) > 0 {
		serve.Auth = roomproto.ServerProof(s.opts.ServerToken, rc.nonce)
	}
	rc.send(serve)
	m, err := firstReply(ctx, rc, replies, roomproto.MsgServing)
	if err != nil {
		rc.close()
		if errors.Is(err, roomproto.ErrUnauthorized) {
			return nil, m, nil, fmt.Errorf("relay: the relay at %s refused this match server: %w", url, err)
		}
		if errors.Is(err, roomproto.ErrBadMessage) {
			return nil, m, nil, fmt.Errorf("relay: the relay at %s takes no match servers (rooms protocol %d): %w", url, roomproto.Version, err)
		}
		return nil, m, nil, fmt.Errorf("relay: serving at %s: %w", url, err)
	}
	return rc, m, start, nil
}

// client returns the relay connection (the latest one).
func (s *ServedRooms) client() *roomClient {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rc
}

// RoomPeerAddr is the transport.Addr under which player id of room code
// appears on a ServedRooms' Conn. After a reconnection
// (ServeOptions.Reconnect) the new relay numbers players from p1 again:
// a player of the n-th connection after the first appears as
// RoomPeerAddr(code, id+"@"+n), apart from the players of before.
func RoomPeerAddr(code, id string) transport.Addr { return webrtc.PeerAddr(code + "/" + id) }

// peerName is the Conn's name of player id of room code, joined through
// connection gen.
func peerName(gen int, code, id string) string {
	if gen > 0 {
		id += "@" + strconv.Itoa(gen)
	}
	return code + "/" + id
}

// RoomOfPeer returns the room code of a ServedRooms' peer address, and ""
// for any other address.
func RoomOfPeer(a transport.Addr) string {
	rest, ok := strings.CutPrefix(string(a), string(webrtc.PeerAddr("")))
	if !ok {
		return ""
	}
	code, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	return code
}

// Host registers one more room on the connection: code if given, else
// one the relay draws. It returns the room's code, or fails with the
// relay's error (roomproto.ErrFull when every slot is in use, roomproto.ErrCodeTaken, ...).
func (s *ServedRooms) Host(ctx context.Context, code string) (string, error) {
	w := &hostWait{reply: make(chan roomproto.Msg, 1)}
	s.mu.Lock()
	rc := s.rc
	s.hosts = append(s.hosts, w)
	s.mu.Unlock()
	rc.send(&roomproto.Msg{Type: roomproto.MsgHost, V: roomproto.V1, Code: code, MaxPlayers: s.opts.MaxPlayers})
	select {
	case m := <-w.reply:
		return hostedCode(m)
	case <-rc.done:
		select { // an answer before the end wins (firstReply)
		case m := <-w.reply:
			return hostedCode(m)
		default:
		}
		return "", s.end.err(rc)
	case <-ctx.Done():
		s.mu.Lock()
		w.abandoned = true
		s.mu.Unlock()
		return "", fmt.Errorf("relay: waiting for %q: %w: %w", roomproto.MsgHosted, ErrNoAnswer, ctx.Err())
	}
}

// hostedCode is the room code of the relay's answer m to "host".
func hostedCode(m roomproto.Msg) (string, error) {
	if m.Type == roomproto.MsgError {
		return "", &roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason}
	}
	return m.Code, nil
}

// handle runs on the reader goroutine of connection rc (the gen-th
// after the first) for every message after "serving".
func (s *ServedRooms) handle(rc *roomClient, gen int, m roomproto.Msg) {
	switch m.Type {
	case roomproto.MsgPing:
		rc.send(&roomproto.Msg{Type: roomproto.MsgPong, N: m.N})
	case roomproto.MsgHosted:
		if m.Claim == roomproto.ClaimHost {
			s.reclaimed(m.Code, nil) // reconnect.go
			return
		}
		s.hosted(m)
	case roomproto.MsgOpen:
		s.open(rc, m)
	case roomproto.MsgPlayer:
		if s.opts.OnPlayer != nil {
			s.opts.OnPlayer(m.Code, m.ID)
		}
	case roomproto.MsgSignal:
		if m.Signal == nil {
			return
		}
		code, id := m.Code, m.From
		_ = s.conn.HandleSignal(peerName(gen, code, id), *m.Signal, func(sig webrtc.Signal) {
			rc.send(&roomproto.Msg{Type: roomproto.MsgSignal, Code: code, To: id, Signal: &sig})
		}) // a player's bad signal fails its own connection only
	case roomproto.MsgICE: // fresh TURN credentials, for the players to come
		s.mu.Lock()
		cfg := webrtcConfig(s.opts.WebRTC, s.url, m.ICE)
		s.mu.Unlock()
		s.conn.SetICEServers(cfg.ICEServers)
	case roomproto.MsgLeft:
		s.conn.RemovePeer(peerName(gen, m.Code, m.ID))
		if s.opts.OnLeft != nil {
			s.opts.OnLeft(m.Code, m.ID)
		}
	case roomproto.MsgEnded:
		s.mu.Lock()
		delete(s.keys, m.Code)
		s.mu.Unlock()
		if s.opts.OnEnded != nil {
			s.opts.OnEnded(m.Code, m.Reason)
		}
	case roomproto.MsgError:
		switch m.Re {
		case roomproto.MsgHost:
			s.hosted(m)
		case roomproto.MsgClaim:
			s.reclaimed("", &roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason})
		case roomproto.MsgSignal, roomproto.MsgEnd:
			// A player who left, a room that ended meanwhile.
		default:
			s.end.set(&roomproto.Error{Code: m.Error, Re: m.Re, Reason: m.Reason})
		}
	}
}

// hosted hands the answer to a "host" (hosted or error) to the Host call
// that waits for it: the relay answers them in order.
func (s *ServedRooms) hosted(m roomproto.Msg) {
	s.mu.Lock()
	if len(s.hosts) == 0 {
		s.mu.Unlock()
		return
	}
	w := s.hosts[0]
	s.hosts = s.hosts[1:]
	if m.Type == roomproto.MsgHosted {
		s.keys[m.Code] = m.Key
	}
	abandoned := w.abandoned
	s.mu.Unlock()
	if abandoned && m.Type == roomproto.MsgHosted {
		s.End(m.Code)
		return
	}
	w.reply <- m // never blocks: one answer per call, buffered
}

// open answers the relay's "open" on rc: OnOpen opens the room, or
// refuses it.
func (s *ServedRooms) open(rc *roomClient, m roomproto.Msg) {
	err := fmt.Errorf("this match server does not open rooms on demand")
	if s.opts.OnOpen != nil {
		err = s.opts.OnOpen(m.Code)
	}
	if err != nil {
		reason := err.Error()
		if len(reason) > roomproto.MaxReason {
			reason = reason[:roomproto.MaxReason]
		}
		rc.send(&roomproto.Msg{Type: roomproto.MsgOpened, Code: m.Code, Reason: reason})
		return
	}
	s.mu.Lock()
	s.keys[m.Code] = m.Key
	s.mu.Unlock()
	rc.send(&roomproto.Msg{Type: roomproto.MsgOpened, Code: m.Code})
}

// Slots is how many rooms the relay lets the connection hold.
func (s *ServedRooms) Slots() int { return s.slots }

// Conn is the transport of every room's players (one UDP port).
func (s *ServedRooms) Conn() *webrtc.Host { return s.conn }

// Key returns the key of room code held on the connection, and false if
// it holds no such room.
func (s *ServedRooms) Key(code string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[code]
	return k, ok
}

// End tells the relay the match of room code ended (its slot frees;
// players coming with the code are told it ended). A code the
// connection does not hold is ignored.
func (s *ServedRooms) End(code string) {
	s.mu.Lock()
	key, ok := s.keys[code]
	delete(s.keys, code)
	delete(s.retries, code)
	rc := s.rc
	s.mu.Unlock()
	if ok {
		rc.send(&roomproto.Msg{Type: roomproto.MsgEnd, Code: code, Key: key})
	}
}

// Done is closed when the relay connection ends for good (Err says why):
// at once without ServeOptions.Reconnect, else once no relay answered
// for that long, or at Close. The Conn keeps working for players already
// connected.
func (s *ServedRooms) Done() <-chan struct{} { return s.done }

// Err says why the relay connection ended (the latest one), or nil.
func (s *ServedRooms) Err() error { return s.end.err(s.client()) }

// URL returns the relay the server is (or was last) registered at.
func (s *ServedRooms) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close leaves the relay (which ends every room of the connection) and
// closes the transport.
func (s *ServedRooms) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.stop)
	}
	rc := s.rc
	s.mu.Unlock()
	rc.close()
	s.wg.Wait()
	return s.conn.Close()
}
