package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

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
}

// ServedRooms is a match server's relay connection: many rooms, one
// WebSocket, and one WebRTC host (one UDP port) for every player of
// every room. A player appears on the Conn as RoomPeerAddr(code, id), so
// RoomOfPeer names the room a datagram belongs to.
type ServedRooms struct {
	rc    *roomClient
	conn  *webrtc.Host
	opts  ServeOptions
	slots int
	end   roomEnd

	mu    sync.Mutex
	keys  map[string]string // code → key of the rooms held
	hosts []*hostWait       // Host calls waiting for their answer, in order
}

// hostWait is a Host call waiting for the relay's answer.
type hostWait struct {
	reply     chan roomMsg
	abandoned bool // the caller gave up: a late "hosted" is ended
}

// ServeRooms registers a match server with the relay (protocol version
// 2) and returns once the relay took it. It hosts no room yet: Host
// registers one, and with OnDemand the relay opens them through OnOpen.
// A relay of version 1 refuses it (ErrBadMessage).
func ServeRooms(ctx context.Context, opts ServeOptions) (*ServedRooms, error) {
	if opts.Slots <= 0 {
		return nil, fmt.Errorf("relay: serve: %w: %d slots", ErrBadMessage, opts.Slots)
	}
	s := &ServedRooms{opts: opts, keys: make(map[string]string)}
	rc, replies, start, err := dialRoomGated(ctx, opts.URL, s.handle)
	if err != nil {
		return nil, err
	}
	s.rc = rc
	rc.send(&roomMsg{Type: RoomMsgServe, V: RoomProtocolVersion, Slots: opts.Slots, OnDemand: opts.OnDemand, MaxPlayers: opts.MaxPlayers})
	m, err := firstReply(ctx, rc, replies, RoomMsgServing)
	if err != nil {
		rc.close()
		if errors.Is(err, ErrBadMessage) {
			return nil, fmt.Errorf("relay: the relay at %s takes no match servers (rooms protocol %d): %w", opts.URL, RoomProtocolVersion, err)
		}
		return nil, fmt.Errorf("relay: serving at %s: %w", opts.URL, err)
	}
	s.slots = m.Slots
	s.conn, err = webrtc.NewHost(webrtcConfig(opts.WebRTC, opts.URL, m.ICE))
	if err != nil {
		rc.close()
		return nil, err
	}
	s.conn.OnPeerOpen, s.conn.OnPeerClose = opts.OnPeerOpen, opts.OnPeerClose
	start()
	return s, nil
}

// RoomPeerAddr is the transport.Addr under which player id of room code
// appears on a ServedRooms' Conn.
func RoomPeerAddr(code, id string) transport.Addr { return webrtc.PeerAddr(code + "/" + id) }

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
// relay's error (ErrFull when every slot is in use, ErrCodeTaken, ...).
func (s *ServedRooms) Host(ctx context.Context, code string) (string, error) {
	w := &hostWait{reply: make(chan roomMsg, 1)}
	s.mu.Lock()
	s.hosts = append(s.hosts, w)
	s.mu.Unlock()
	s.rc.send(&roomMsg{Type: RoomMsgHost, V: roomV1, Code: code, MaxPlayers: s.opts.MaxPlayers})
	select {
	case m := <-w.reply:
		if m.Type == RoomMsgError {
			return "", &RoomError{Code: m.Error, Re: m.Re, Reason: m.Reason}
		}
		return m.Code, nil
	case <-s.rc.done:
		return "", s.Err()
	case <-ctx.Done():
		s.mu.Lock()
		w.abandoned = true
		s.mu.Unlock()
		return "", fmt.Errorf("relay: waiting for %q: %w: %w", RoomMsgHosted, ErrNoAnswer, ctx.Err())
	}
}

// handle runs on the reader goroutine for every message after "serving".
func (s *ServedRooms) handle(m roomMsg) {
	switch m.Type {
	case RoomMsgPing:
		s.rc.send(&roomMsg{Type: RoomMsgPong, N: m.N})
	case RoomMsgHosted:
		s.hosted(m)
	case RoomMsgOpen:
		s.open(m)
	case RoomMsgPlayer:
		if s.opts.OnPlayer != nil {
			s.opts.OnPlayer(m.Code, m.ID)
		}
	case RoomMsgSignal:
		if m.Signal == nil {
			return
		}
		code, id := m.Code, m.From
		_ = s.conn.HandleSignal(code+"/"+id, *m.Signal, func(sig webrtc.Signal) {
			s.rc.send(&roomMsg{Type: RoomMsgSignal, Code: code, To: id, Signal: &sig})
		}) // a player's bad signal fails its own connection only
	case RoomMsgLeft:
		s.conn.RemovePeer(m.Code + "/" + m.ID)
		if s.opts.OnLeft != nil {
			s.opts.OnLeft(m.Code, m.ID)
		}
	case RoomMsgEnded:
		s.mu.Lock()
		delete(s.keys, m.Code)
		s.mu.Unlock()
		if s.opts.OnEnded != nil {
			s.opts.OnEnded(m.Code, m.Reason)
		}
	case RoomMsgError:
		switch m.Re {
		case RoomMsgHost:
			s.hosted(m)
		case RoomMsgSignal, RoomMsgEnd:
			// A player who left, a room that ended meanwhile.
		default:
			s.end.set(&RoomError{Code: m.Error, Re: m.Re, Reason: m.Reason})
		}
	}
}

// hosted hands the answer to a "host" (hosted or error) to the Host call
// that waits for it: the relay answers them in order.
func (s *ServedRooms) hosted(m roomMsg) {
	s.mu.Lock()
	if len(s.hosts) == 0 {
		s.mu.Unlock()
		return
	}
	w := s.hosts[0]
	s.hosts = s.hosts[1:]
	if m.Type == RoomMsgHosted {
		s.keys[m.Code] = m.Key
	}
	abandoned := w.abandoned
	s.mu.Unlock()
	if abandoned && m.Type == RoomMsgHosted {
		s.End(m.Code)
		return
	}
	w.reply <- m // never blocks: one answer per call, buffered
}

// open answers the relay's "open": OnOpen opens the room, or refuses it.
func (s *ServedRooms) open(m roomMsg) {
	err := fmt.Errorf("this match server does not open rooms on demand")
	if s.opts.OnOpen != nil {
		err = s.opts.OnOpen(m.Code)
	}
	if err != nil {
		reason := err.Error()
		if len(reason) > roomMaxReason {
			reason = reason[:roomMaxReason]
		}
		s.rc.send(&roomMsg{Type: RoomMsgOpened, Code: m.Code, Reason: reason})
		return
	}
	s.mu.Lock()
	s.keys[m.Code] = m.Key
	s.mu.Unlock()
	s.rc.send(&roomMsg{Type: RoomMsgOpened, Code: m.Code})
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
	s.mu.Unlock()
	if ok {
		s.rc.send(&roomMsg{Type: RoomMsgEnd, Code: code, Key: key})
	}
}

// Done is closed when the relay connection ends (Err says why). The Conn
// keeps working for players already connected.
func (s *ServedRooms) Done() <-chan struct{} { return s.rc.done }

// Err says why the relay connection ended, or nil.
func (s *ServedRooms) Err() error { return s.end.err(s.rc) }

// Close leaves the relay (which ends every room of the connection) and
// closes the transport.
func (s *ServedRooms) Close() error {
	s.rc.close()
	return s.conn.Close()
}

// OpenOptions says how to ask a relay for a room on demand.
type OpenOptions struct {
	// MaxPlayers asks the relay to cap the room (0: the match server's
	// cap, or the relay's).
	MaxPlayers int
}

// OpenRoom asks the relay at url to open a room on a match server with a
// free slot (one that registered with ServeOptions.OnDemand) and returns
// its code once the server has opened it; players then join it by the
// code. It fails with ErrFull (as a *RoomError whose Reason says why)
// when no match server can take it. In a fleet of relays sharing Redis,
// a relay whose own match servers are full places the room on another
// relay's (OpenRoomWithKey tells the key too).
func OpenRoom(ctx context.Context, url string, opts OpenOptions) (string, error) {
	r, err := OpenRoomWithKey(ctx, url, opts)
	return r.Code, err
}

// OpenedRoom is a room opened on demand, as the relay hands it to the
// lobby that asked for it.
type OpenedRoom struct {
	// Code is what players join the room by.
	Code string
	// Key is the room's key (32 hex digits): it proves the room is the
	// lobby's, which may end it with it (EndRoom) before or during its
	// match. Players need only the code. Empty from a relay of before
	// the key was handed out.
	Key string
	// MaxPlayers is the room's cap on players.
	MaxPlayers int
}

// OpenRoomWithKey is OpenRoom, returning the room's key and cap beside
// its code.
func OpenRoomWithKey(ctx context.Context, url string, opts OpenOptions) (OpenedRoom, error) {
	rc, replies, start, err := dialRoomGated(ctx, url, func(roomMsg) {})
	if err != nil {
		return OpenedRoom{}, err
	}
	defer rc.close()
	start()
	rc.send(&roomMsg{Type: RoomMsgOpen, V: RoomProtocolVersion, MaxPlayers: opts.MaxPlayers})
	m, err := firstReply(ctx, rc, replies, RoomMsgOpened)
	if err != nil {
		return OpenedRoom{}, fmt.Errorf("relay: opening a room at %s: %w", url, err)
	}
	return OpenedRoom{Code: m.Code, Key: m.Key, MaxPlayers: m.MaxPlayers}, nil
}

// EndRoom ends the room code at the relay at url with its key (any relay
// of a fleet sharing Redis): its players and its host are told it ended,
// a match server frees its slot, and the code is remembered as ended. It
// fails with the relay's refusal (ErrNoRoom, ErrBadKey, ErrRoomEnded).
func EndRoom(ctx context.Context, url, code, key string) error {
	rc, replies, start, err := dialRoomGated(ctx, url, func(roomMsg) {})
	if err != nil {
		return err
	}
	defer rc.close()
	start()
	rc.send(&roomMsg{Type: RoomMsgEnd, Code: strings.ToUpper(strings.TrimSpace(code)), Key: key})
	if _, err := firstReply(ctx, rc, replies, RoomMsgEnded); err != nil {
		return fmt.Errorf("relay: ending %s at %s: %w", code, url, err)
	}
	return nil
}
