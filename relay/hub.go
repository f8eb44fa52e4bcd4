package relay

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomproto"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// roomHub is the relay's core: connections, rooms, limits and timers,
// driven by the server's goroutines but taking the time as an argument, so
// tests run it in made-up time. One mutex guards it all.
type roomHub struct {
	cfg RoomConfig

	mu      sync.Mutex
	nextID  uint64
	conns   map[uint64]*roomConn
	perAddr map[string]int
	rooms   map[string]*room
	guard   roomGuard // pending joiners and failed joins (guard.go)
	caps    roomCaps  // rooms per address, opens per address (caps.go)
	stats   hubStats
	serving serveCounters // rooms opened on demand (serve.go)
	fleet   *fleetLink    // the other relays, with a roomdir.Redis (fleet.go); else nil
	ops     []func()      // directory writes to run once mu is released (hub_dir.go)
	drained bool          // the operator's drain: no new rooms (console.go)
	// lastTick is when tick last ran (stall.go).
	lastTick time.Time
	// opsRunning counts the directory writes unlock took from ops and
	// has not finished (hub_dir.go: idle).
	opsRunning atomic.Int64

	randMu sync.Mutex // guards cfg.Rand
}

// Roles of a connection.
const (
	roleNone = iota
	roleHost
	rolePlayer
	roleClaimant // waiting for a claim's probe (migrate.go)
)

// roomConn is one WebSocket connection as the hub sees it. The server's
// writer goroutine drains out and, once kill closes dead, closes the
// WebSocket with status and reason.
type roomConn struct {
	id   uint64
	addr string
	out  chan []byte
	dead chan struct{}

	// Guarded by the hub's mutex.
	killed    bool
	status    websocket.StatusCode
	reason    string
	role      int
	room      *room
	pid       string       // player id in room
	noHost    bool         // a claimant that cannot host (migrate.go)
	connected bool         // player's data channel open
	spectator bool         // a player that joined as a spectator: not counted against maxPlayers
	fwd       string       // roleForward: the relay that hosts the room (fleet.go)
	standIn   bool         // stands in for a connection of another relay (fleet.go)
	srv       *matchServer // roleServer: its rooms and pings (serve.go)
	joinedAt  time.Time
	// freeSignals counts the host's signals to this joining player that
	// were let through without rate limiting.
	freeSignals int
	tokens      float64
	lastMsg     time.Time
	opens       int       // opens placed for this connection (caps.go)
	nonce       string    // handed in the upgrade's roomproto.NonceHeader (serve.go)
	iceAt       time.Time // a host's or match server's TURN credentials handed (hub_turn.go)
}

// room is a live room hosted through this relay process.
type room struct {
	code, key  string
	host       *roomConn
	players    map[string]*roomConn
	joining    int // players whose data channel has not opened yet
	maxPlayers int
	nextPlayer int
	lastPong   time.Time
	lastPing   time.Time
	pingN      uint64

	// Host migration (migrate.go). migrate: the host asked for it;
	// orphaned: its host vanished at orphanedAt, and the room waits for a
	// claimant; takenAt: when a claimant last took it over; claims: the
	// claimants waiting, in arrival order, for the answer to the probe
	// (ping probeN) sent at probeAt.
	migrate    bool
	orphaned   bool
	orphanedAt time.Time
	takenAt    time.Time
	claims     []*roomConn
	probeN     uint64
	probeAt    time.Time

	// Key rotation and a new host's duty to serve (rekey.go). prevKey:
	// the key before the last rekey, at rekeyedAt; serveBy: when a new
	// host must have served a claimant it was introduced (served: one
	// reported its data channel open); barred: the addresses of hosts
	// that took the room over and served no one, which do not host it
	// again.
	prevKey   string
	rekeyedAt time.Time
	heardAt   time.Time // the host's last pong when it was lost
	serveBy   time.Time
	served    bool
	barred    []string

	// Rooms of a match server (serve.go). onDemand: opened at a
	// lobby's request at openedAt; opening: its server has not
	// confirmed it yet, and opener waits for the code.
	onDemand bool
	opening  bool
	opener   *roomConn
	openedAt time.Time

	admin roomAdmin // what the operator's console shows and set (console.go)

	// capAddr is the address whose RoomsPerAddr the room counts against,
	// or "" (caps.go).
	capAddr string
}

func newRoomHub(cfg RoomConfig) *roomHub {
	return &roomHub{
		cfg:     cfg,
		conns:   make(map[uint64]*roomConn),
		perAddr: make(map[string]int),
		rooms:   make(map[string]*room),
	}
}

// connect admits a new connection from addr, or refuses it with
// roomproto.ErrTooManyConns.
func (h *roomHub) connect(addr string, now time.Time) (*roomConn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.conns) >= h.cfg.MaxConns {
		return nil, fmt.Errorf("%w: relay has %d", roomproto.ErrTooManyConns, len(h.conns))
	}
	if h.perAddr[addr] >= h.cfg.ConnsPerAddr {
		return nil, fmt.Errorf("%w: %d from %s", roomproto.ErrTooManyConns, h.perAddr[addr], addr)
	}
	h.nextID++
	c := &roomConn{
		id:      h.nextID,
		addr:    addr,
		out:     make(chan []byte, h.cfg.SendQueue),
		dead:    make(chan struct{}),
		tokens:  float64(h.cfg.MsgBurst),
		lastMsg: now,
	}
	h.conns[c.id] = c
	h.perAddr[addr]++
	return c, nil
}

// disconnect forgets a connection whose WebSocket has closed.
func (h *roomHub) disconnect(c *roomConn, now time.Time) {
	h.mu.Lock()
	defer h.unlock()
	if h.conns[c.id] != c {
		return
	}
	delete(h.conns, c.id)
	if h.perAddr[c.addr]--; h.perAddr[c.addr] <= 0 {
		delete(h.perAddr, c.addr)
	}
	if c.role == roleForward {
		h.fleet.gone(c)
	}
	if c.role == roleServer {
		h.serverGone(c, now, "host left") // serve.go
	}
	h.leaveRoom(c, now, "host left")
	h.kill(c, websocket.StatusNormalClosure, "")
}

// leaveRoom takes c out of its room: a player is gone, a host is gone.
func (h *roomHub) leaveRoom(c *roomConn, now time.Time, why string) {
	r := c.room
	if r == nil {
		return
	}
	switch c.role {
	case rolePlayer:
		delete(r.players, c.pid)
		if !c.connected {
			r.joining--
			h.pendingDone(c)
		}
		h.send(r.host, &roomproto.Msg{Type: roomproto.MsgLeft, Code: r.code, ID: c.pid})
	case roleHost:
		h.hostGone(r, now, why)
	case roleClaimant:
		r.dropClaim(c)
	}
	c.room, c.role, c.pid, c.connected, c.spectator = nil, roleNone, "", false, false
}

// send queues a message for c; a connection too slow to keep up is closed.
func (h *roomHub) send(c *roomConn, m *roomproto.Msg) {
	if c == nil || c.killed {
		return
	}
	select {
	case c.out <- m.Encode():
	default:
		h.kill(c, websocket.StatusPolicyViolation, "slow: send queue full")
	}
}

// fail sends an error; fatal errors then close the connection.
func (h *roomHub) fail(c *roomConn, re string, err error) {
	code, ok := roomproto.ErrCodeOf(err)
	if !ok {
		code = roomproto.ErrCodeBadMessage
	}
	h.send(c, ptr(roomproto.ErrorMsg(code, re, err.Error())))
	switch code {
	case roomproto.ErrCodeBadMessage, roomproto.ErrCodeBadVersion, roomproto.ErrCodeRateLimited, roomproto.ErrCodeTooManyConns,
		roomproto.ErrCodeUnauthorized:
		h.kill(c, websocket.StatusPolicyViolation, code+": "+err.Error())
	case roomproto.ErrCodeTooLarge:
		h.kill(c, websocket.StatusMessageTooBig, code+": "+err.Error())
	}
}

func ptr[T any](v T) *T { return &v }

// kill marks c to be closed with status and reason (trimmed to fit a close
// frame); the writer goroutine does the closing.
func (h *roomHub) kill(c *roomConn, status websocket.StatusCode, reason string) {
	if c.killed {
		return
	}
	if len(reason) > 120 {
		reason = reason[:120]
	}
	c.killed, c.status, c.reason = true, status, reason
	close(c.dead)
}

// tooLarge closes c for a message over the size limit.
func (h *roomHub) tooLarge(c *roomConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fail(c, "", fmt.Errorf("%w: over %d bytes", roomproto.ErrTooLarge, h.cfg.MaxMessageBytes))
}

// handle takes one message from c at now.
func (h *roomHub) handle(c *roomConn, b []byte, now time.Time) {
	h.mu.Lock()
	defer h.unlock()
	if c.killed {
		return
	}
	if c.role == roleForward { // the room's relay checks it, limits included
		h.fleet.up(c, b)
		return
	}
	m, err := roomproto.Decode(b)
	if !h.spend(c, &m, err, now) {
		return
	}
	if err != nil {
		h.fail(c, "", err)
		return
	}
	if needsDirectory(m.Type) {
		if !h.precheck(c, &m, now) {
			return
		}
		h.mu.Unlock() // the directory may be a Redis round trip away
		d := h.consult(c, &m, now)
		h.mu.Lock()
		h.decide(c, &m, d, now)
		return
	}
	switch m.Type {
	case roomproto.MsgSignal:
		h.signal(c, &m)
	case roomproto.MsgConnected:
		h.connected(c, &m, now)
	case roomproto.MsgRekey:
		h.rekey(c, &m, now) // rekey.go
	case roomproto.MsgServe:
		h.serve(c, &m, now)
	case roomproto.MsgOpened:
		h.opened(c, &m, now)
	case roomproto.MsgPong:
		if c.role == roleServer {
			h.serverPong(c, m.N, now)
			return
		}
		if c.role != roleHost {
			h.fail(c, m.Type, fmt.Errorf("%w: pong from a connection that hosts nothing", roomproto.ErrBadMessage))
			return
		}
		if m.N <= c.room.pingN {
			c.room.lastPong = now
			h.probeAnswered(c.room, m.N, now)
		}
	}
}

// spend takes a token of c's bucket for m (decoded with err), failing c
// when none is left: MsgRate per second, MsgBurst at most. A host's
// signals to a player still joining are free up to hostSignalsPerJoin per
// player, so that many players joining at once (each needing an answer
// and a few candidates) cannot get their host rate-limited; so are a
// match server's messages freeServerMsg lets through.
func (h *roomHub) spend(c *roomConn, m *roomproto.Msg, err error, now time.Time) bool {
	c.tokens += now.Sub(c.lastMsg).Seconds() * h.cfg.MsgRate
	if c.tokens > float64(h.cfg.MsgBurst) {
		c.tokens = float64(h.cfg.MsgBurst)
	}
	c.lastMsg = now
	if h.freeSignal(c, m, err) || h.freeServerMsg(c, m, err) {
		return true
	}
	if c.tokens < 1 {
		h.fail(c, "", fmt.Errorf("%w: over %g per second", roomproto.ErrRateLimited, h.cfg.MsgRate))
		return false
	}
	c.tokens--
	return true
}

// connected takes a player's report that its data channel to the host is
// open: it now counts against the room's players, and goes if the room
// is full.
func (h *roomHub) connected(c *roomConn, m *roomproto.Msg, now time.Time) {
	if c.role != rolePlayer {
		h.fail(c, m.Type, fmt.Errorf("%w: only a player in a room reports connected", roomproto.ErrBadMessage))
		return
	}
	if c.connected {
		return
	}
	r := c.room
	if players, _ := r.members(); !c.spectator && players >= r.maxPlayers {
		// Joiners pending do not count against the room's players, nor
		// do spectators: a player whose channel opens in a full room goes.
		h.leaveRoom(c, now, "")
		h.fail(c, m.Type, fmt.Errorf("%w: %d players", roomproto.ErrRoomFull, r.maxPlayers))
		return
	}
	c.connected = true
	r.joining--
	r.served = true // a new host serves (rekey.go)
	h.pendingDone(c)
}

// hostSignalsPerJoin is how many of its host's signals a joining player
// lets through without rate limiting (an answer and candidates: a handful
// in practice).
const hostSignalsPerJoin = 32

// freeSignal reports whether m, from c, is a host's signal to a player
// still joining with free signals left, and counts it.
func (h *roomHub) freeSignal(c *roomConn, m *roomproto.Msg, err error) bool {
	if err != nil || (c.role != roleHost && c.role != roleServer) || m.Type != roomproto.MsgSignal {
		return false
	}
	r := h.hostedRoom(c, m.Code)
	if r == nil {
		return false
	}
	p := r.players[m.To]
	if p == nil || p.connected || p.freeSignals >= hostSignalsPerJoin {
		return false
	}
	p.freeSignals++
	return true
}

func (h *roomHub) host(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	if d.err != nil {
		h.fail(c, m.Type, d.err)
		return
	}
	if c.role == roleServer && c.srv.free() <= 0 { // rooms opened on demand took the slots meanwhile
		h.abandon(d)
		h.fail(c, m.Type, fmt.Errorf("%w: all %d slots of this connection are in use", roomproto.ErrFull, c.srv.slots))
		return
	}
	r := h.newRoom(d.rec, c, m.MaxPlayers, now)
	h.countRoom(r, c) // caps.go
	r.migrate = m.Migrate
	h.send(c, &roomproto.Msg{Type: roomproto.MsgHosted, V: roomproto.Version, Code: r.code, Key: r.key,
		MaxPlayers: r.maxPlayers, ICE: h.ice(r.code+"-host", now)})
}

func (h *roomHub) join(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	rec, ok := d.rec, d.ok
	r := h.rooms[m.Code]
	switch {
	case d.err != nil && r == nil:
		// The directory cannot tell (its Redis is down, or came back
		// empty and the relays are registering their rooms again): not
		// "no room". Counted as a failed join all the same, so that
		// guessing while the directory is out is no faster.
		h.unavailable(c, m, d.err, now)
		return
	case ok && rec.Ended:
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Code))
		return
	case ok && r == nil && d.ownerDead:
		h.fail(c, m.Type, fmt.Errorf("%w: %.6q: its relay is gone", roomproto.ErrNoRoom, m.Code))
		return
	case ok && r == nil && h.fleet.remoteOwner(rec):
		// Hosted by another relay process of the fleet: from now on
		// this connection's messages go there (fleet.go).
		h.fleet.forward(c, rec.Owner, m)
		return
	case r == nil || (!ok && d.err == nil):
		// (A room of this relay is joined on its own word while the
		// directory cannot answer.)
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: %.6q", roomproto.ErrNoRoom, m.Code))
		return
	case r.admin.closed:
		h.fail(c, m.Type, fmt.Errorf("%w: closed to new joins by the operator", roomproto.ErrRoomFull))
		return
	case r.orphaned || len(r.claims) > 0:
		h.fail(c, m.Type, fmt.Errorf("%w: its match is moving to a new host", roomproto.ErrRoomBusy))
		return
	}
	players, spectators := r.members()
	switch {
	case m.Spectator && spectators >= h.cfg.MaxSpectators:
		h.fail(c, m.Type, fmt.Errorf("%w: %d spectators", roomproto.ErrRoomFull, spectators))
		return
	case !m.Spectator && players >= r.maxPlayers:
		h.fail(c, m.Type, fmt.Errorf("%w: %d players", roomproto.ErrRoomFull, players))
		return
	case r.joining >= h.cfg.JoiningPerRoom && !h.makeJoinRoom(r, now):
		h.fail(c, m.Type, fmt.Errorf("%w: %d joining", roomproto.ErrRoomBusy, r.joining))
		return
	}
	h.admit(r, c, now, "")
	c.spectator = m.Spectator
}

// members counts r's players whose data channel is open, spectators
// not included, and its spectators, joining or connected (a join's
// "spectator" flag): the counts RoomConfig.MaxPlayers and MaxSpectators
// cap.
func (r *room) members() (players, spectators int) {
	for _, p := range r.players {
		switch {
		case p.spectator:
			spectators++
		case p.connected:
			players++
		}
	}
	return players, spectators
}

// admit makes c a player of r: it gets its id (joined, with the claim's
// outcome if it claimed), and the host is told.
func (h *roomHub) admit(r *room, c *roomConn, now time.Time, claim string) {
	r.nextPlayer++
	c.pid = "p" + strconv.Itoa(r.nextPlayer)
	c.role, c.room = rolePlayer, r
	r.players[c.pid] = c
	r.joining++
	h.awaitServe(r, now, claim) // rekey.go
	h.cfg.Log.Debug("relay: player admitted", "room", r.code, "conn", c.id, "player", c.pid, "claim", claim)
	h.addPending(c, now)
	h.send(c, &roomproto.Msg{Type: roomproto.MsgJoined, V: roomproto.Version, Code: r.code, ID: c.pid,
		ICE: h.ice(r.code+"-"+c.pid, now), Claim: claim})
	h.send(r.host, &roomproto.Msg{Type: roomproto.MsgPlayer, Code: r.code, ID: c.pid})
}

func (h *roomHub) signal(c *roomConn, m *roomproto.Msg) {
	switch c.role {
	case rolePlayer:
		h.send(c.room.host, &roomproto.Msg{Type: roomproto.MsgSignal, Code: c.room.code, From: c.pid, Signal: m.Signal})
	case roleHost, roleServer:
		r := h.hostedRoom(c, m.Code)
		if r == nil {
			h.fail(c, m.Type, fmt.Errorf("%w: no room %.12q on this connection", roomproto.ErrNoPlayer, m.Code))
			return
		}
		p := r.players[m.To]
		if p == nil {
			h.fail(c, m.Type, fmt.Errorf("%w: %.16q", roomproto.ErrNoPlayer, m.To))
			return
		}
		h.send(p, &roomproto.Msg{Type: roomproto.MsgSignal, Signal: m.Signal})
	default:
		h.fail(c, m.Type, fmt.Errorf("%w: signal outside a room", roomproto.ErrBadMessage))
	}
}

func (h *roomHub) end(c *roomConn, m *roomproto.Msg, d dirAnswer, now time.Time) {
	rec, ok := d.rec, d.ok
	switch {
	case d.err != nil:
		h.unavailable(c, m, d.err, now)
	case !ok:
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrNoRoom, m.Code))
	case rec.Key != m.Key:
		h.joinFailed(c, now)
		h.fail(c, m.Type, fmt.Errorf("%w for room %s", roomproto.ErrBadKey, m.Code))
	case rec.Ended:
		h.fail(c, m.Type, fmt.Errorf("%w: %s", roomproto.ErrRoomEnded, m.Code))
	case d.sendTo != "": // live at another relay of the fleet: ended there
		h.fleet.forward(c, d.sendTo, m)
	default: // the directory has it ended already (consult)
		if r := h.rooms[m.Code]; r != nil {
			h.closeRoom(r, "ended")
		}
		if c.role == roleNone {
			h.send(c, &roomproto.Msg{Type: roomproto.MsgEnded, Code: m.Code, Reason: "ended"})
		}
	}
}

// unavailable answers m (a join, claim or end) with err
// (roomproto.ErrUnavailable: consult), and counts a failed join.
func (h *roomHub) unavailable(c *roomConn, m *roomproto.Msg, err error, now time.Time) {
	h.stats.directoryUnavailable++
	h.joinFailed(c, now)
	h.fail(c, m.Type, fmt.Errorf("%w: %.12q", err, m.Code))
}

// ice returns the ICE servers handed to a room member.
func (h *roomHub) ice(user string, now time.Time) []webrtc.ICEServer {
	if h.cfg.TURN == nil {
		return nil
	}
	return []webrtc.ICEServer{h.cfg.TURN.Credentials(user, now)}
}

// tick pings hosts and declares silent ones gone, and closes idle
// connections; the server calls it every
// TickInterval (tests call it with made-up times).
func (h *roomHub) tick(now time.Time) {
	h.mu.Lock()
	defer h.unlock()
	h.forgiveStall(now) // the relay's own stall is not the hosts' (stall.go)
	for _, r := range h.rooms {
		if r.host != nil && r.host.role == roleServer {
			h.serverRoomTick(r, now) // pinged with its server (serve.go)
			continue
		}
		if h.migrationTick(r, now) {
			continue
		}
		if now.Sub(r.lastPong) >= h.cfg.HostTimeout {
			host := r.host
			h.hostGone(r, now, "host gone: no answer to ping")
			if host != nil {
				h.send(host, ptr(roomproto.ErrorMsg(roomproto.ErrCodeHostGone, roomproto.MsgPing, roomproto.ErrHostGone.Error())))
				h.kill(host, websocket.StatusPolicyViolation, "host did not answer ping")
			}
			continue
		}
		if now.Sub(r.lastPing) >= h.cfg.PingInterval {
			r.pingN++
			r.lastPing = now
			h.send(r.host, &roomproto.Msg{Type: roomproto.MsgPing, N: r.pingN})
		}
	}
	for _, c := range h.conns {
		if c.role == roleServer {
			h.serverTick(c, now)
		}
		if c.role == roleNone && !c.killed && now.Sub(c.lastMsg) >= h.cfg.IdleTimeout {
			h.send(c, ptr(roomproto.ErrorMsg(roomproto.ErrCodeIdle, "", "no room and nothing sent")))
			h.kill(c, websocket.StatusPolicyViolation, roomproto.ErrCodeIdle+": no room and nothing sent")
		}
	}
	h.renewICE(now) // hub_turn.go
	h.tickGuards(now)
	h.tickCaps(now)
	if h.fleet != nil {
		h.fleet.refresh(now)
	}
	if s, ok := h.cfg.Directory.(interface{ Sweep(time.Time) }); ok {
		h.later(func() { s.Sweep(now) })
	}
}

// closeAll closes every connection (the relay is shutting down).
func (h *roomHub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		h.kill(c, websocket.StatusGoingAway, "relay shutting down")
	}
}

// counts reports connections and live rooms (for tests and metrics).
func (h *roomHub) counts() (conns, rooms int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns), len(h.rooms)
}
