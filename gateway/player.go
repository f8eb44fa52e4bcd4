package gateway

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// evKind is what a socket tells its player.
type evKind uint8

const (
	evAttach evKind = iota + 1 // sock is now the player's (resume: from lastTick)
	evDetach                   // sock ended
	evMsg                      // msg came on sock
)

// event is one thing a socket tells its player.
type event struct {
	kind     evKind
	sock     *socket
	resume   bool
	lastTick uint32
	msg      clientMsg
}

// player is one JSON player: a lockstep rewind client of the match over
// the gateway's loopback network, and the socket it plays through (none
// while it waits for a resume). Its goroutine owns everything but inbox.
type player[I any] struct {
	gw    *Gateway[I]
	token string
	inbox chan event
	done  chan struct{} // closed when the player has left
	// endErr is why the player's client stopped (nil: it left), written
	// before done is closed.
	endErr error
	// postMu: posts hold it for reading; leave takes it once done is
	// closed, so that after it sets left no event enters inbox unseen.
	postMu sync.RWMutex
	left   bool

	c    *client.Client[I]
	conn *transport.SimConn
	me   game.PlayerID
	sock *socket
	away time.Time // when the last socket ended (zero: attached)

	cur    I      // the input now
	curSeq uint64 // the sequence that set it
	// lastSeq is the newest sequence taken and sentTick the newest tick
	// made: the socket's reader checks messages against them (atomics),
	// so that every refusal comes from one goroutine, in message order.
	lastSeq  atomic.Uint64
	sentTick atomic.Uint32

	sent       bool // an initial_state went to the current socket
	checkpoint bool // a desync asked for one
	gone       bool // its socket closed before its initial_state: no resume
	// ckGap is the least time from ckLast, the last checkpoint sent for a
	// desync, to the next one (Config.CheckpointEvery, doubling).
	ckGap  time.Duration
	ckLast time.Time
	ckWait time.Duration // the least time from ckLast to the next answer
	// theirs is the last desync's page hashes (nil: a bare desync) of the
	// client's world after theirsTick; mine and diff are scratch.
	theirs     []uint64
	theirsTick uint32
	mine       []uint64
	diff       []int
	stepped    uint32 // the last tick stepped
	body       []byte // the last stepped tick's commands and events
	prev       [game.MaxPlayers][]byte
	cmds       []command
	packed     []byte
	hist       []histTick // ring of the last gw.hist ticks
	histN      int
	lastTick   uint32 // newest tick message made
	present    uint64 // the players present after the last stepped tick
}

// histTick is a tick message kept for a resume.
type histTick struct {
	tick uint32
	msg  []byte
}

// tap wraps the game so that a player sees every tick its lockstep client
// steps: exactly the confirmed ticks, once each, in order.
type tap[I any] struct {
	game.Game[I]
	p *player[I]
}

// Step steps the game, then notes the tick's inputs and events.
func (t tap[I]) Step(w *world.World, tk *game.Tick[I]) {
	t.Game.Step(w, tk)
	t.p.onStep(tk)
}

// TickRate is the game's.
func (t tap[I]) TickRate() int { return game.RateOf(t.Game) }

// Unwrap implements game.Wrapper: the engine finds the game's optional
// interfaces (its input schema, for one) through the tap.
func (t tap[I]) Unwrap() any { return t.Game }

// newPlayer starts a player in a new slot (if the match has one: else its
// socket gets full).
func (gw *Gateway[I]) newPlayer(ip netip.Addr) (*player[I], bool) {
	if !gw.enter() {
		return nil, false
	}
	gw.mu.Lock()
	gw.nextID++
	name := playerName(gw.nextID, ip)
	p := &player[I]{gw: gw, token: newToken(), inbox: make(chan event, 64), done: make(chan struct{}),
		hist: make([]histTick, gw.hist), packed: make([]byte, gw.it.Size()), away: time.Now()}
	gw.tokens[p.token] = p
	gw.players++
	gw.mu.Unlock()
	go func() {
		defer gw.wg.Done()
		defer p.leave()
		if err := p.run(name); err != nil {
			p.endErr = err
			gw.logEnded(p.me, err)
		}
	}()
	return p, true
}

// logEnded logs why a player's client ended: a refusal by the match
// (full, incompatible) one line per reason per second at most (a flood
// of sockets refused full cost a line each: issue 30 item 7), anything
// else always.
func (gw *Gateway[I]) logEnded(id game.PlayerID, err error) {
	var r *client.RefusedError
	if errors.As(err, &r) {
		gw.refLog.Log(gw.log, time.Now(), "json player refused", "reason", r.Reason.String(), "err", err)
		return
	}
	gw.log.Info("json player ended", "player", id, "err", err)
}

// post hands e to the player; false if it has left (or ctx ended).
func (p *player[I]) post(ctx context.Context, e event) bool {
	p.postMu.RLock()
	defer p.postMu.RUnlock()
	if p.left {
		p.unheard(e)
		return false
	}
	select {
	case p.inbox <- e:
		return true
	case <-p.done:
		p.unheard(e)
		return false
	case <-ctx.Done():
		return false
	}
}

// unheard answers an event the player, gone, will never handle: a socket
// to attach is told why (the client may have been refused, full, before
// the socket was attached: then that, not "left").
func (p *player[I]) unheard(e event) {
	if e.kind == evAttach && !p.refused(e.sock, p.endErr) {
		e.sock.fail(CodeInvalidInput, "the player left the match")
	}
}

// leave forgets the player.
func (p *player[I]) leave() {
	gw := p.gw
	gw.mu.Lock()
	delete(gw.tokens, p.token)
	gw.players--
	gw.mu.Unlock()
	close(p.done)
	p.postMu.Lock() // every post under way has ended: no more in inbox
	p.left = true
	p.postMu.Unlock()
	for len(p.inbox) > 0 {
		p.unheard(<-p.inbox)
	}
	if p.sock != nil {
		p.sock.close(websocket.StatusNormalClosure, "left the match")
	}
	if p.conn != nil {
		p.conn.Close()
	}
}

// run plays until the match ends the player, the rejoin window passes
// without a socket, or the gateway closes.
func (p *player[I]) run(name string) error {
	gw := p.gw
	conn, err := gw.net.Dial(name, serverName)
	if err != nil {
		return err
	}
	p.conn = conn
	p.c, err = client.New[I](tap[I]{gw.g, p}, conn, client.Config{
		Lockstep: true, ExactDelay: true, InputDelay: gw.cfg.InputDelay, Schema: gw.schema, OnVerified: p.onVerified,
	})
	if err != nil {
		return err
	}
	p.c.SetInputFunc(p.sample)
	dt := time.Second / time.Duration(gw.rate)
	timer := time.NewTimer(dt)
	defer timer.Stop()
	for {
		p.drain() // inputs that came before the next tick are on time for it
		now := time.Now()
		if err := p.c.Update(now); err != nil {
			p.ended(err)
			return err
		}
		if id, ok := p.c.Player(); ok {
			p.me = id
		}
		if p.sock != nil && p.c.Playing() && p.stepped != 0 && p.c.Stats().Verified == p.stepped && (!p.sent || p.checkpointDue(now)) {
			p.sendInitial(now)
		}
		if p.sock == nil && (p.gone || now.Sub(p.away) > gw.cfg.RejoinWindow) {
			_ = p.c.Close() // a bye: the player leaves the match
			return nil
		}
		timer.Reset(dt)
		select {
		case <-conn.Ready():
		case e := <-p.inbox:
			p.handle(e)
		case <-timer.C:
		case <-gw.ctx.Done():
			_ = p.c.Close()
			return nil
		}
	}
}

// drain handles every event already in the inbox.
func (p *player[I]) drain() {
	for {
		select {
		case e := <-p.inbox:
			p.handle(e)
		default:
			return
		}
	}
}

// ended tells the socket why the player's client stopped.
func (p *player[I]) ended(err error) {
	if p.sock == nil {
		return
	}
	if p.refused(p.sock, err) {
		p.sock = nil
		return
	}
	p.sock.close(websocket.StatusGoingAway, "the match ended this player")
	p.sock = nil
}

// handle takes one event from a socket.
func (p *player[I]) handle(e event) {
	switch e.kind {
	case evAttach:
		if p.sock != nil && p.sock != e.sock {
			p.sock.close(websocket.StatusPolicyViolation, "resumed on another connection")
		}
		p.sock, p.away = e.sock, time.Time{}
		if e.resume && p.sent {
			p.replay(e.lastTick)
		} else {
			p.sent = false // an initial_state at the next completed tick
		}
	case evDetach:
		if p.sock == e.sock {
			// A socket that never got its initial_state has no resume
			// token: its slot is freed at once, not after RejoinWindow.
			p.gone = !p.sent
			p.sock, p.away, p.sent = nil, time.Now(), true
		}
	case evMsg:
		if p.sock != e.sock {
			return // a replaced socket's last words
		}
		p.message(e.msg)
	}
}

// message takes a decoded client message.
func (p *player[I]) message(m clientMsg) {
	switch m.kind {
	case msgInput:
		p.curSeq = m.seq
		p.gw.it.Unpack(m.input, &p.cur)
		if p.gw.onTake != nil {
			p.gw.onTake(m.seq, p.lastTick)
		}
	case msgDesync:
		p.checkpoint = true
		p.theirs, p.theirsTick = m.pages, m.tickID
	}
}

// replay sends a resumed socket every tick after last, or an
// initial_state when the history no longer holds them.
func (p *player[I]) replay(last uint32) {
	oldest := p.lastTick - uint32(min(p.histN, len(p.hist))) + 1
	if p.histN == 0 || last > p.lastTick || last+1 < oldest {
		p.sent = false
		return
	}
	for t := last + 1; t <= p.lastTick; t++ {
		h := &p.hist[int(t)%len(p.hist)]
		if h.tick == t && !p.sock.send(h.msg) {
			return
		}
	}
}

// sample is the client's input function: the input now, for tick t.
func (p *player[I]) sample(t uint32) I {
	if p.curSeq != 0 {
		p.gw.recordSeq(p.me, t, p.curSeq)
	}
	return p.cur
}

// onStep renders the stepped tick's commands (each player's input that
// differs from the one it had, a joining or leaving player's counted from
// zero) and events.
func (p *player[I]) onStep(tk *game.Tick[I]) {
	it := p.gw.it
	p.cmds = p.cmds[:0]
	var moved [game.MaxPlayers]bool
	for _, e := range tk.Events {
		moved[e.Player] = true
	}
	for i := range tk.Inputs {
		cur := it.Pack(p.packed, &tk.Inputs[i])
		prev := p.prev[i]
		if moved[i] || prev == nil {
			prev = nil
		}
		changed := false
		if prev == nil {
			changed = !zero(cur)
		} else {
			changed = !bytes.Equal(cur, prev)
		}
		if changed && tk.Present[i] {
			in := append([]byte(nil), cur...)
			p.cmds = append(p.cmds, command{player: game.PlayerID(i), seq: p.gw.seqOf(game.PlayerID(i), tk.Number), input: in})
		}
		if !tk.Present[i] || zero(cur) {
			p.prev[i] = nil
		} else {
			p.prev[i] = append(p.prev[i][:0], cur...)
		}
	}
	p.present = 0
	for i, in := range tk.Present {
		if in {
			p.present |= 1 << i
		}
	}
	p.body = appendBody(p.body[:0], it.Schema, p.cmds, tk.Events)
	p.stepped = tk.Number
}

func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// onVerified makes the tick message of a verified tick, keeps it, and
// sends it.
func (p *player[I]) onVerified(tick uint32, hash uint64) {
	if tick != p.stepped {
		return // not stepped here (the world this client loaded)
	}
	h := &p.hist[int(tick)%len(p.hist)]
	h.tick = tick
	h.msg = appendTick(h.msg[:0:0], tick, p.body, hash)
	p.histN++
	p.lastTick = tick
	p.sentTick.Store(tick)
	if p.sock != nil && p.sent {
		p.gw.st.ticksOut.Add(1)
		p.sock.send(h.msg)
	}
}

// checkpointDue reports whether a desync asked for a checkpoint and the
// wait since the last one has passed (paceRepair).
func (p *player[I]) checkpointDue(now time.Time) bool {
	return p.checkpoint && (p.ckLast.IsZero() || now.Sub(p.ckLast) >= p.ckWait)
}

// sendInitial sends the socket its first initial_state at the verified
// tick, or the answer to a desync (repairMessage), paced (paceRepair).
func (p *player[I]) sendInitial(now time.Time) {
	gw := p.gw
	msg, pages := p.repairMessage()
	switch {
	case !p.sock.send(msg):
	case pages:
		gw.st.pages.Add(1)
	default:
		gw.st.initials.Add(1)
	}
	if p.checkpoint && p.sent {
		gw.st.checkpoints.Add(1)
		p.paceRepair(now, len(msg))
	}
	p.sent, p.checkpoint, p.theirs = true, false, nil
}

// currentInputs returns every present player's input as of the last
// stepped tick (those not zero).
func (p *player[I]) currentInputs() []command {
	var out []command
	for i, in := range p.prev {
		if in != nil {
			out = append(out, command{player: game.PlayerID(i), input: in})
		}
	}
	return out
}

// refused tells sock, and reports true, when err is the match refusing
// the player's client: full, or another reason (incompatible).
func (p *player[I]) refused(sock *socket, err error) bool {
	var r *client.RefusedError
	if !errors.As(err, &r) {
		return false
	}
	if r.Reason == codec.ReasonFull {
		p.gw.st.full.Add(1)
		sock.fail(CodeFull, "the match has no free player slot")
		return true
	}
	sock.fail(CodeIncompatible, "the match refused this player: "+r.Reason.String())
	return true
}
