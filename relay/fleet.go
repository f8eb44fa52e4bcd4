package relay

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind/relay/roomdir"
	"github.com/rewindnet/rewind/relay/roomproto"
)

// roleForward is the role of a player's connection whose room is hosted
// by another relay process of the fleet: every message it sends is
// forwarded there, every message from there is written to it.
const roleForward = roleClaimant + 1

// fleetMsg is what relay processes tell each other over Redis pub/sub,
// on the channel of the receiving relay (PREFIX "relay:" ID). A player's
// connection at relay A whose room is hosted at relay B is stood in for
// at B by a connection of B's hub (the stand-in), which runs the room
// protocol exactly as for a local player (limits included):
//
//	A → B  open  {f: A, c: id, a: addr, d: the join}   B makes the stand-in
//	A → B  up    {f: A, c: id, d: a message}           the player said d
//	A → B  gone  {f: A, c: id}                         the player's WebSocket closed
//	B → A  down  {c: id, d: a message}                 write d to the player
//	B → A  close {c: id, s: status, r: reason}         close the player's WebSocket
//
// Redis delivers a channel's messages in the order published, and each
// relay publishes from one goroutine, so a player's messages keep their
// order both ways.
type fleetMsg struct {
	K string `json:"k"`
	F string `json:"f,omitempty"`
	C uint64 `json:"c"`
	A string `json:"a,omitempty"`
	D string `json:"d,omitempty"`
	S int    `json:"s,omitempty"`
	R string `json:"r,omitempty"`
}

// fleetLink connects a hub to the other relays of its fleet.
type fleetLink struct {
	dir      roomdir.Fleet
	hub      *roomHub
	unlisten func()        // stops the subscriber
	out      chan fleetOut // to the publisher goroutine, in order
	stop     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup

	// Guarded by hub.mu.
	standIns    map[string]*roomConn // "RELAY/ID" → the stand-in here
	lastRefresh time.Time
	refreshing  bool // a refresh's goroutine runs

	slots fleetSlots // this relay's on-demand slots, published (fleet_open.go)
}

type fleetOut struct {
	relay string
	msg   fleetMsg
}

// fleetQueue is how many messages wait for the publisher; a relay that
// falls this far behind closes the connection whose message did not fit
// ("slow"), as a full send queue does.
const fleetQueue = 4096

// newFleetLink subscribes to this relay's channel and starts the
// publisher and the subscriber goroutines.
func newFleetLink(dir roomdir.Fleet, hub *roomHub) *fleetLink {
	l := &fleetLink{dir: dir, hub: hub, out: make(chan fleetOut, fleetQueue), stop: make(chan struct{}),
		standIns: make(map[string]*roomConn)}
	_, _ = dir.Refresh(nil) // this relay's liveness, before any relay hears of it
	l.wg.Add(1)
	go l.publish()
	l.unlisten = dir.Listen(l.receive)
	return l
}

// close stops the goroutines (the hub has closed every connection); a
// second close waits for the first.
func (l *fleetLink) close() {
	l.once.Do(func() {
		close(l.stop)
		l.unlisten()
		l.dir.DropAlive()
	})
	l.wg.Wait()
}

// send queues m for relay; false if the queue is full. hub.mu may be held.
func (l *fleetLink) send(relay string, m fleetMsg) bool {
	select {
	case l.out <- fleetOut{relay, m}:
		return true
	default:
		return false
	}
}

func (l *fleetLink) publish() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case o := <-l.out:
			b, _ := json.Marshal(o.msg)
			l.dir.Publish(o.relay, b)
		}
	}
}

// receive takes a message another relay published to this one (from the
// directory's subscriber goroutine).
func (l *fleetLink) receive(b []byte) {
	var m fleetMsg
	if json.Unmarshal(b, &m) != nil {
		return
	}
	l.take(m, l.hub.cfg.Clock.Now())
}

// take handles a message from another relay.
func (l *fleetLink) take(m fleetMsg, now time.Time) {
	h := l.hub
	key := m.F + "/" + strconv.FormatUint(m.C, 10)
	switch m.K {
	case "open":
		c, err := h.connect(m.A, now)
		if err != nil {
			d := roomproto.ErrorMsg(roomproto.ErrCodeTooManyConns, "", err.Error())
			l.send(m.F, fleetMsg{K: "down", C: m.C, D: string(d.Encode())})
			l.send(m.F, fleetMsg{K: "close", C: m.C, S: int(websocket.StatusTryAgainLater), R: roomproto.ErrCodeTooManyConns})
			return
		}
		h.mu.Lock()
		l.standIns[key] = c
		c.standIn = true
		h.mu.Unlock()
		l.wg.Add(1)
		go l.pump(c, m.F, m.C)
		h.handle(c, []byte(m.D), now)
	case "up":
		h.mu.Lock()
		c := l.standIns[key]
		h.mu.Unlock()
		if c != nil {
			h.handle(c, []byte(m.D), now)
		}
	case "gone":
		h.mu.Lock()
		c := l.standIns[key]
		delete(l.standIns, key)
		h.mu.Unlock()
		if c != nil {
			h.disconnect(c, now)
		}
	case "down", "close":
		h.mu.Lock()
		defer h.mu.Unlock()
		c := h.conns[m.C]
		if c == nil || c.role != roleForward {
			return
		}
		if m.K == "down" {
			select {
			case c.out <- []byte(m.D):
			default:
				h.kill(c, websocket.StatusPolicyViolation, "slow: send queue full")
			}
			return
		}
		h.kill(c, websocket.StatusCode(m.S), m.R)
	}
}

// pump carries a stand-in's messages back to the player's relay, and its
// close once the hub kills it.
func (l *fleetLink) pump(c *roomConn, relay string, id uint64) {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case b := <-c.out:
			l.send(relay, fleetMsg{K: "down", C: id, D: string(b)})
		case <-c.dead:
			for more := true; more; {
				select {
				case b := <-c.out:
					l.send(relay, fleetMsg{K: "down", C: id, D: string(b)})
				default:
					more = false
				}
			}
			l.hub.mu.Lock()
			status, reason := c.status, c.reason
			l.hub.mu.Unlock()
			l.send(relay, fleetMsg{K: "close", C: id, S: int(status), R: reason})
			return
		}
	}
}

// forward makes c, which asked to join a room hosted by relay owner,
// a forwarded connection, and sends its join there. hub.mu is held.
func (l *fleetLink) forward(c *roomConn, owner string, join *roomproto.Msg) {
	c.role, c.fwd = roleForward, owner
	if !l.send(owner, fleetMsg{K: "open", F: l.dir.Self(), C: c.id, A: c.addr, D: string(join.Encode())}) {
		l.hub.kill(c, websocket.StatusPolicyViolation, "slow: relay fleet queue full")
	}
}

// up forwards a message of a forwarded connection. hub.mu is held.
func (l *fleetLink) up(c *roomConn, b []byte) {
	if !l.send(c.fwd, fleetMsg{K: "up", F: l.dir.Self(), C: c.id, D: string(b)}) {
		l.hub.kill(c, websocket.StatusPolicyViolation, "slow: relay fleet queue full")
	}
}

// gone tells the host's relay that a forwarded connection closed. hub.mu
// is held.
func (l *fleetLink) gone(c *roomConn) { l.send(c.fwd, fleetMsg{K: "gone", F: l.dir.Self(), C: c.id}) }

// refresh, when due (every RefreshEvery), extends the TTL of this relay's
// rooms and its liveness, and drops the stand-ins of relays found dead.
// The Redis round trips run on a goroutine of their own, one refresh at a
// time. hub.mu is held.
func (l *fleetLink) refresh(now time.Time) {
	if now.Sub(l.lastRefresh) < l.dir.RefreshEvery() {
		return
	}
	l.lastRefresh = now
	rooms := make([]roomdir.Record, 0, len(l.hub.rooms))
	for code, r := range l.hub.rooms {
		rooms = append(rooms, roomdir.Record{Code: code, Key: r.key})
	}
	var relays []string
	for key := range l.standIns {
		if r, _, _ := strings.Cut(key, "/"); !slices.Contains(relays, r) {
			relays = append(relays, r)
		}
	}
	for _, c := range l.hub.conns {
		if c.role == roleForward && !slices.Contains(relays, c.fwd) {
			relays = append(relays, c.fwd)
		}
	}
	if l.refreshing {
		return // the last one still waits for Redis
	}
	// On a goroutine of its own, not the timer's: a Redis that does not
	// answer takes up to OpTimeout per call, and the timer must go on
	// pinging the hosts meanwhile.
	l.refreshing = true
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		// A failed refresh is retried at the next.
		again, err := l.dir.Refresh(rooms)
		if err == nil && again > 0 {
			l.hub.cfg.Log.Info("relay: the room directory had lost rooms of this relay: registered again", "rooms", again)
		}
		l.publishSlots()
		if len(relays) > 0 {
			l.dropDead(relays, now)
		}
		l.hub.mu.Lock()
		l.hub.stats.roomsRegisteredAgain += again
		l.refreshing = false
		l.hub.mu.Unlock()
	}()
}

// dropDead disconnects the stand-ins of those of relays whose liveness key
// is gone: the player's relay died without saying "gone" for them, and
// the room's host is told they left. The connections forwarded to such a
// relay (players of the rooms it held) are closed, as the dead relay's
// own connections were.
func (l *fleetLink) dropDead(relays []string, now time.Time) {
	alive, ok := l.dir.Alive(relays)
	if !ok {
		return // Redis did not answer: nobody is taken for dead
	}
	h := l.hub
	var gone []*roomConn
	h.mu.Lock()
	for key, c := range l.standIns {
		r, _, _ := strings.Cut(key, "/")
		if i := slices.Index(relays, r); i >= 0 && !alive[i] {
			delete(l.standIns, key)
			gone = append(gone, c)
			h.stats.deadRelayDrops++
		}
	}
	for _, c := range h.conns {
		if i := slices.Index(relays, c.fwd); c.role == roleForward && i >= 0 && !alive[i] {
			h.kill(c, websocket.StatusGoingAway, "the room's relay is gone")
			h.stats.deadRelayDrops++
		}
	}
	h.mu.Unlock()
	for _, c := range gone {
		h.cfg.Log.Debug("relay: player's relay gone", "conn", c.id)
		h.disconnect(c, now)
	}
}

// checkOwner checks that the relay owning d.rec, a live room of
// another relay, is alive. A join of a dead relay's room is refused
// (ownerDead); a claim of it (host migration, the players coming back
// through a live relay) makes this relay its owner, so the claimant takes
// it over here, unless another relay adopted it first: then the claim
// goes there. Called outside the hub's lock.
func (l *fleetLink) checkOwner(d *dirAnswer, m *roomproto.Msg) {
	alive, ok := l.dir.Alive([]string{d.rec.Owner})
	if !ok || alive[0] {
		return
	}
	if m.Type != roomproto.MsgClaim {
		d.ownerDead = true
		return
	}
	if l.dir.Adopt(d.rec.Code, d.rec.Owner) {
		d.rec.Owner = l.dir.Self()
		return
	}
	d.rec, d.ok, d.err = l.dir.Lookup(m.Code, time.Time{})
	if d.err != nil {
		return
	}
	if !d.ok { // expired meanwhile: the claimant records it again
		rec := roomdir.Record{Code: m.Code, Key: m.Key}
		if l.dir.Claim(rec, time.Time{}) == nil {
			d.rec, d.ok, d.claimed = rec, true, true
		}
		return
	}
	if d.rec.Owner != l.dir.Self() {
		if alive, ok := l.dir.Alive([]string{d.rec.Owner}); ok && !alive[0] {
			d.ownerDead = true // adopted by a relay that died too: no_room
		}
	}
}

// remoteOwner reports whether rec is a live room hosted by another relay
// of the fleet.
func (l *fleetLink) remoteOwner(rec roomdir.Record) bool {
	return l != nil && !rec.Ended && rec.Owner != "" && rec.Owner != l.dir.Self()
}
