package relay

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/relay/roomcode"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/relay/turn"
	"github.com/rewindnet/rewind/transport"
)

// DefaultHostTimeout is RoomConfig.HostTimeout's default.
const DefaultHostTimeout = 3 * time.Second

// RoomConfig configures the rooms relay. Zero fields take the defaults
// (Tide's relay limits); timers are settings so tests can shorten them.
type RoomConfig struct {
	// Clock gives the time; default the wall clock.
	Clock transport.Clock
	// Rand is the source of room codes and keys; default crypto/rand.
	Rand io.Reader
	// Directory maps codes to rooms; default a roomdir.Memory that
	// remembers ended rooms for EndedRemember.
	Directory roomdir.Directory
	// TURN, if set, is the TURN server whose credentials room members get.
	TURN *turn.Server

	// MaxMessageBytes is the largest message accepted (16 KiB); a larger
	// one closes its connection with too_large.
	MaxMessageBytes int
	// ConnsPerAddr limits connections from one IP address (64).
	ConnsPerAddr int
	// MaxConns limits connections in all (20,000).
	MaxConns int
	// MsgRate and MsgBurst limit each connection's messages: a token
	// bucket of MsgBurst (200) filling at MsgRate per second (50).
	MsgRate  float64
	MsgBurst int
	// JoiningPerRoom limits players joining one room at once: joined but
	// data channel not yet open (32). At the limit, the oldest of them
	// goes if it has been joining for JoinGrace; otherwise the join is
	// refused (room_busy).
	JoiningPerRoom int
	// JoiningPerAddr limits the players joining at once from one IP
	// address, in all rooms (8): one more drops that address's oldest.
	JoiningPerAddr int
	// JoinTimeout drops a joiner whose data channel has not opened
	// within it (20 s): it leaves the room, its connection is closed
	// with join_timeout.
	JoinTimeout time.Duration
	// JoinGrace is how long a joiner may hold its place when the room
	// has JoiningPerRoom joiners and another arrives (5 s).
	JoinGrace time.Duration
	// FailedJoinRate and FailedJoinBurst throttle failed joins and ends
	// (no such room, bad key, room ended) per IP address (IPv6: per /64),
	// across its connections: a token bucket of FailedJoinBurst (20)
	// filling at FailedJoinRate per second (1). An address out of tokens
	// has every join and end refused (rate_limited, closing the
	// connection) until a token comes back.
	FailedJoinRate  float64
	FailedJoinBurst int
	// FailBudgetRate and FailBudgetBurst are the budget of failed joins
	// and ends from every address together: the relay's, or with a
	// roomdir.Redis the fleet's (in Redis), a token bucket of
	// FailBudgetBurst (600) filling at FailBudgetRate per second (0.2).
	// While it is spent, a join or end from an address that failed one
	// within FailMemory (24 h) is refused (rate_limited, closing the
	// connection) before its code is looked up; an address without a
	// failure in that span is answered as always. So guessing from many
	// addresses gets the budget plus one guess per address per
	// FailMemory (docs/security.md has the arithmetic). A negative
	// FailBudgetRate turns the budget off.
	FailBudgetRate  float64
	FailBudgetBurst int
	FailMemory      time.Duration
	// MaxPlayers caps the players of a room (64); a host may ask fewer.
	// Joiners whose data channel has not opened do not count, nor do
	// spectators.
	MaxPlayers int
	// MaxSpectators caps the spectators of a room (64): those that joined
	// with the join's "spectator" flag (roomclient.JoinOptions.Spectator), who
	// take no player slot in the match (its server admits them as
	// spectators, up to its own cap). Joining ones count. The flag is
	// the joiner's word: one that says hello to the host as a player
	// anyway is a player there, within the server's MaxPlayers.
	MaxSpectators int
	// SendQueue is the number of messages queued per connection (256); a
	// connection that falls this far behind is closed as slow.
	SendQueue int

	// PingInterval is how often a host is pinged (1 s).
	PingInterval time.Duration
	// HostTimeout is how long a host may leave pings unanswered before it
	// is gone (3 s).
	HostTimeout time.Duration
	// IdleTimeout closes a connection that is in no room and has sent
	// nothing for this long (30 s), so idle sockets do not hold slots.
	IdleTimeout time.Duration
	// EndedRemember is how long an ended room is remembered (5 min).
	EndedRemember time.Duration
	// ProbeTimeout is how long a host that still holds its relay
	// connection has to answer the probe a claim sets off before the
	// claimants take the match over (3 s).
	ProbeTimeout time.Duration
	// TakeoverWindow is how long after a claimant took a room over later
	// claimants are introduced to it without a probe (3 s).
	TakeoverWindow time.Duration
	// RekeyGrace: a room whose host was lost after rotating its key
	// ("rekey", when a player left) is claimed with the previous key
	// too if the host's last pong came within RekeyGrace of the rekey:
	// its players may not have had the new key yet (2 s). Ends need
	// the current key.
	RekeyGrace time.Duration
	// ServeTimeout is how long a claimant that took a room over has to
	// serve the claimants it was introduced (one reports its data
	// channel open) before it loses the room to the next claimant, and
	// its address hosts the room no more (5 s).
	ServeTimeout time.Duration
	// OrphanWindow is how long a room whose migrating host vanished
	// waits for a claimant (code and key kept) before it is forgotten
	// (30 s).
	OrphanWindow time.Duration
	// ServerSlots caps the rooms one match server's connection may hold
	// (1024), whatever slots it asks for ("serve", serve.go).
	ServerSlots int
	// OpenTimeout is how long a match server has to confirm a room the
	// relay asked it to open on demand (5 s); then the lobby that asked
	// is told "full".
	OpenTimeout time.Duration
	// UnusedTimeout ends a room opened on demand that no player joined
	// within it (2 min), freeing its match server's slot. (A room joined
	// whose match never starts is ended by its match server:
	// rooms.ServeOptions.UnusedTimeout.)
	UnusedTimeout time.Duration
	// MaxRooms caps the live rooms of the relay (100,000: about 130 MB);
	// beyond, a host or an open is refused too_many_rooms.
	MaxRooms int
	// RoomsPerAddr caps the live rooms hosted from one IP address
	// (1,024): a player's host, or a match server's rooms it hosts or
	// claims back; an authenticated match server's (ServerToken) and
	// rooms opened on demand (bounded by OpenRate) do not count.
	RoomsPerAddr int
	// OpenRate and OpenBurst limit the rooms one IP address (IPv6: per
	// /64) has opened on demand: a token bucket of OpenBurst (10) filling
	// at OpenRate per second (0.2: 12 a minute), charged for each open
	// placed on a match server (an open refused "full" costs nothing).
	// Beyond, rate_limited.
	OpenRate  float64
	OpenBurst int
	// OpensPerConn caps the opens placed for one connection (4); beyond,
	// rate_limited.
	OpensPerConn int
	// TickInterval is how often the relay's timer runs (250 ms); negative
	// means no timer goroutine (tests drive the hub's tick themselves).
	TickInterval time.Duration
	// WriteTimeout bounds one WebSocket write (5 s).
	WriteTimeout time.Duration
	// OriginPatterns, if set, restricts the browser origins allowed to
	// connect (coder/websocket patterns); empty allows any origin (the
	// relay holds no cookies or ambient authority).
	OriginPatterns []string
	// CodeLength is the length of the room codes the relay draws: 6 to
	// 12 characters of roomcode.Alphabet (default roomcode.DefaultLen, 7:
	// about 3.4·10^10 codes; each more character makes a code 32 times
	// harder to guess; docs/security.md has the arithmetic). Longer
	// ones are taken to 12, shorter ones to 6. Codes of any length in
	// that range are accepted from hosts and joiners.
	CodeLength int
	// ServerToken, if set, is the secret a match server proves it holds
	// when it registers ("serve", roomproto.ServerProof over the
	// connection's nonce): one that does not is refused unauthorized.
	// Empty: any client may register as a match server, on demand too
	// (`rewind relay` says so at start). Player-hosted rooms are open to
	// anyone either way.
	ServerToken []byte
	// Log, if set, gets the relay's room events at debug level: rooms
	// hosted, orphaned, taken over and closed, and every decision on a
	// claim (host migration). Default: discarded.
	Log *slog.Logger
}

// WithDefaults returns c with zero fields set to their defaults.
func (c RoomConfig) WithDefaults() RoomConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Clock == nil {
		c.Clock = transport.WallClock{}
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	defD(&c.EndedRemember, 5*time.Minute)
	if c.Directory == nil {
		c.Directory = roomdir.NewMemory(c.EndedRemember)
	}
	def(&c.MaxMessageBytes, 16<<10)
	def(&c.ConnsPerAddr, 64)
	def(&c.MaxConns, 20000)
	if c.MsgRate <= 0 {
		c.MsgRate = 50
	}
	def(&c.MsgBurst, 200)
	def(&c.JoiningPerRoom, 32)
	def(&c.JoiningPerAddr, 8)
	defD(&c.JoinTimeout, 20*time.Second)
	defD(&c.JoinGrace, 5*time.Second)
	if c.FailedJoinRate <= 0 {
		c.FailedJoinRate = 1
	}
	def(&c.FailedJoinBurst, 20)
	if c.FailBudgetRate == 0 {
		c.FailBudgetRate = 0.2
	}
	def(&c.FailBudgetBurst, 600)
	defD(&c.FailMemory, 24*time.Hour)
	def(&c.MaxPlayers, 64)
	def(&c.MaxSpectators, 64)
	def(&c.CodeLength, roomcode.DefaultLen)
	c.CodeLength = min(max(c.CodeLength, roomcode.Len), roomcode.MaxLen)
	def(&c.SendQueue, 256)
	defD(&c.PingInterval, time.Second)
	defD(&c.HostTimeout, DefaultHostTimeout)
	defD(&c.IdleTimeout, 30*time.Second)
	defD(&c.ProbeTimeout, 3*time.Second)
	defD(&c.TakeoverWindow, 3*time.Second)
	defD(&c.OrphanWindow, 30*time.Second)
	defD(&c.RekeyGrace, 2*time.Second)
	defD(&c.ServeTimeout, 5*time.Second)
	def(&c.ServerSlots, 1024)
	defD(&c.OpenTimeout, 5*time.Second)
	defD(&c.UnusedTimeout, 2*time.Minute)
	def(&c.MaxRooms, 100000)
	def(&c.RoomsPerAddr, 1024)
	if c.OpenRate <= 0 {
		c.OpenRate = 0.2
	}
	def(&c.OpenBurst, 10)
	def(&c.OpensPerConn, 4)
	defD(&c.TickInterval, 250*time.Millisecond)
	defD(&c.WriteTimeout, 5*time.Second)
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// RoomServer is the rooms relay: an http.Handler taking WebSocket
// connections from hosts and players (see roomproto/msg.go for the protocol).
type RoomServer struct {
	cfg  RoomConfig
	hub  *roomHub
	wg   sync.WaitGroup
	stop chan struct{}
	once sync.Once

	mu     sync.Mutex
	closed bool
}

// NewRoomServer returns a relay and starts its timer.
func NewRoomServer(cfg RoomConfig) *RoomServer {
	cfg = cfg.WithDefaults()
	s := &RoomServer{cfg: cfg, hub: newRoomHub(cfg), stop: make(chan struct{})}
	if cfg.TURN != nil {
		cfg.TURN.SetLive(s.hub.liveMember) // the refreshes of long matches (turn/renew.go)
	}
	if d, ok := cfg.Directory.(roomdir.Fleet); ok {
		s.hub.fleet = newFleetLink(d, s.hub) // players reach hosts at the fleet's other relays
	}
	if cfg.TickInterval > 0 {
		s.wg.Add(1)
		go s.timer()
	}
	return s
}

func (s *RoomServer) timer() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.TickInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.hub.tick(s.cfg.Clock.Now())
		case <-s.stop:
			return
		}
	}
}

// Stats reports the open connections and live rooms.
func (s *RoomServer) Stats() (conns, rooms int) { return s.hub.counts() }

// ServeHTTP upgrades the request to a WebSocket and serves one host or
// player on it until it closes.
func (s *RoomServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A frame declaring more than MaxMessageBytes is refused at once (the
	// guard reads every frame header as it arrives).
	var c *roomConn
	tooLarge := func() {
		if c != nil {
			s.hub.tooLarge(c)
		}
	}
	w = netutil.GuardWebSocket(w, int64(s.cfg.MaxMessageBytes), tooLarge)
	nonce, err := s.hub.newNonce()
	if err != nil {
		http.Error(w, "relay: drawing a nonce", http.StatusInternalServerError)
		return
	}
	w.Header().Set(roomproto.NonceHeader, nonce)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		InsecureSkipVerify: len(s.cfg.OriginPatterns) == 0,
		OriginPatterns:     s.cfg.OriginPatterns,
	})
	if err != nil {
		return // Accept has answered the request
	}
	ws.SetReadLimit(-1) // the reader enforces MaxMessageBytes itself, with a reason
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
	}
	c, err = s.hub.connect(addr, s.cfg.Clock.Now())
	if err != nil {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.WriteTimeout)
		defer cancel()
		m := roomproto.ErrorMsg(roomproto.ErrCodeTooManyConns, "", err.Error())
		_ = ws.Write(ctx, websocket.MessageText, m.Encode())
		_ = ws.Close(websocket.StatusTryAgainLater, roomproto.ErrCodeTooManyConns)
		return
	}
	s.hub.mu.Lock()
	c.nonce = nonce
	s.hub.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.hub.disconnect(c, s.cfg.Clock.Now())
		_ = ws.CloseNow()
		return
	}
	s.wg.Add(2) // this handler and its writer
	s.mu.Unlock()
	defer s.wg.Done()
	writerDone := make(chan struct{})
	go func() {
		defer s.wg.Done()
		defer close(writerDone)
		s.writeLoop(ws, c)
	}()
	s.readLoop(ws, c)
	s.hub.disconnect(c, s.cfg.Clock.Now())
	<-writerDone
}

// readLoop reads messages until the WebSocket fails or c is killed.
func (s *RoomServer) readLoop(ws *websocket.Conn, c *roomConn) {
	// No read context: coder/websocket closes the connection when a read's
	// context ends, which would cut off the error message and close reason
	// a killed connection is owed. The writer's close handshake ends reads.
	ctx := context.Background()
	limit := int64(s.cfg.MaxMessageBytes)
	for {
		typ, rd, err := ws.Reader(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			s.hub.mu.Lock()
			s.hub.fail(c, "", errors.Join(roomproto.ErrBadMessage, errors.New("binary message")))
			s.hub.mu.Unlock()
			return
		}
		b, err := io.ReadAll(io.LimitReader(rd, limit+1))
		if err != nil {
			return
		}
		if int64(len(b)) > limit {
			s.hub.tooLarge(c)
			return
		}
		s.hub.handle(c, b, s.cfg.Clock.Now())
	}
}

// writeLoop owns the WebSocket's writer: it sends queued messages until c
// is killed, then sends what is still queued and closes with c's reason.
func (s *RoomServer) writeLoop(ws *websocket.Conn, c *roomConn) {
	write := func(b []byte) bool {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.WriteTimeout)
		defer cancel()
		return ws.Write(ctx, websocket.MessageText, b) == nil
	}
	for {
		select {
		case b := <-c.out:
			if !write(b) {
				_ = ws.CloseNow()
				s.hub.mu.Lock()
				s.hub.kill(c, websocket.StatusInternalError, "write failed")
				s.hub.mu.Unlock()
				return
			}
		case <-c.dead:
			for {
				select {
				case b := <-c.out:
					if !write(b) {
						_ = ws.CloseNow()
						return
					}
					continue
				default:
				}
				break
			}
			s.hub.mu.Lock()
			status, reason := c.status, c.reason
			s.hub.mu.Unlock()
			s.closeWS(ws, status, reason)
			return
		}
	}
}

// closeWS closes with a close handshake bounded by WriteTimeout.
func (s *RoomServer) closeWS(ws *websocket.Conn, status websocket.StatusCode, reason string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ws.Close(status, reason)
	}()
	select {
	case <-done:
	case <-time.After(s.cfg.WriteTimeout):
		_ = ws.CloseNow()
		<-done
	}
}

// Close closes every connection and stops the timer. The http.Server that
// serves s is closed by its owner.
func (s *RoomServer) Close() error {
	s.once.Do(func() { close(s.stop) })
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.hub.closeAll()
	s.wg.Wait()
	if s.hub.fleet != nil {
		s.hub.fleet.close()
	}
	return nil
}
