package client

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
)

// Cookie returns the cookie of the client's welcome, with which a new
// client rejoins as the same player (Config.Cookie), and whether it was
// welcomed yet.
func (c *Client[I]) Cookie() ([codec.CookieSize]byte, bool) {
	return c.join.cookie, c.welcomed()
}

// Loading reports whether the client is getting the server's world (it
// joined a running match, or fell behind) and does not play yet.
func (c *Client[I]) Loading() bool { return c.phase == loading }

// onWelcome starts the match, or moves the client to a newer tick's world
// when the server says so (it fell further behind than the server keeps
// ticks). The world at the welcome's tick is the one Setup made at tick 0;
// at a later tick it comes from the server (fetch.go). Every tick since
// comes from the server.
func (c *Client[I]) onWelcome(now time.Time, b []byte) error {
	m, _, err := codec.ParseWelcome(b)
	if err != nil {
		return err
	}
	switch c.phase {
	case closed:
		return nil
	case gettingModule:
		c.onModuleWelcome(&m, b)
		return nil
	case loading, playing:
		// The same welcome again (lost ones are repeated), or a newer
		// one: a rebase.
		if m.Player == uint8(c.me) && m.Tag == c.tag && m.Transfer == c.join.welcomeID && m.Tick == c.join.welcomeTick {
			// The same welcome again: its cookie is the same too
			// (servers before it made a fresh one for each repeat and
			// kept the newest few: keeping the newest works with both).
			c.join.cookie = m.Cookie
			return nil
		}
		if m.Player != uint8(c.me) || int32(m.Transfer-c.join.welcomeID) <= 0 || int32(m.Tick-c.join.welcomeTick) <= 0 {
			return nil
		}
		if c.phase == playing {
			// Should the server go while the new world loads, the
			// client hands off from where it was (Handoff).
			c.ho.rebased = nil
			if h, ok := c.Handoff(); ok {
				c.ho.rebased = &h
			}
		}
		c.tag, c.join.cookie = m.Tag, m.Cookie
		c.st.Rebases++
		return c.begin(now, &m)
	}
	if m.Version != codec.ProtocolVersion {
		return fmt.Errorf("client: welcome of protocol %d: %w", m.Version, ErrRefused)
	}
	if need, err := c.needModule(now, &m, b); need || err != nil {
		return err
	}
	if c.cfg.HostSettings {
		if err := c.takeSettings(&m); err != nil {
			return err
		}
	}
	c.join.settings = append([]byte(nil), m.Settings...)
	if int(m.TickRate) != c.rate {
		return fmt.Errorf("client: server ticks at %d Hz, the game at %d: %w", m.TickRate, c.rate, ErrRefused)
	}
	if (m.Player == codec.SpectatorID) != c.cfg.Spectate {
		return fmt.Errorf("client: welcome as player %d (spectating: %t): %w", m.Player, c.cfg.Spectate, ErrRefused)
	}
	c.me, c.tag, c.hashBits, c.join.cookie = game.PlayerID(m.Player), m.Tag, m.HashBits, m.Cookie
	// The round trip from the first hello: too long if hellos were lost,
	// but never too short (which would make our first inputs late); pings
	// and the server's margin reports refine it.
	c.clock.rtt = now.Sub(c.clock.helloFirst)
	c.clock.lastHeard = now
	c.window = uint32(c.cfg.MaxPrediction / c.dt)
	c.rx.dec = codec.NewTickDecoder(c.it.Schema, c.hashBits)
	c.rx.tk.Events = make([]codec.Event, 0, codec.MaxEvents)
	c.rx.conf = make([]byte, game.MaxPlayers*c.it.Size())
	c.rx.bodies = make([][]byte, bodyRing)
	c.rx.bodyAt = make([]uint32, bodyRing)
	c.rx.bmask = bodyRing - 1
	c.tx.sendIns = make([][]byte, 0, codec.MaxInputsPerMessage)
	c.rx.ticksMsg.Ticks = make([]codec.TickBody, 0, codec.MaxTicksPerMessage)
	return c.begin(now, &m)
}

// begin starts the client at the welcome's tick.
func (c *Client[I]) begin(now time.Time, m *codec.Welcome) error {
	if err := c.rx.dec.Roster().ParseSnapshot(m.Roster); err != nil {
		return fmt.Errorf("client: welcome roster: %w", err)
	}
	c.join.welcomeID, c.join.welcomeTick = m.Transfer, m.Tick
	if int32(m.Tick-c.rx.latest) > 0 {
		// The server had just run tick T when it sent the welcome: that
		// is a tick heard of, as the lead's clock needs one. A small world
		// comes whole with the welcome and may be in before any tick
		// after T is, and the clock would otherwise start from no tick
		// at all (tick 0 at the zero time: a second ahead, for good,
		// since a report of a second early is the most the server's input
		// window lets it say).
		c.rx.latest, c.rx.latestAt = m.Tick, now
	}
	clear(c.rx.bodyAt)
	c.rx.decodeNext = m.Tick + 1
	c.rx.recvWin.Reset(m.Tick + 1)
	c.tx.inputAck = m.Tick + 1
	corrections := c.clock.lead.corrections
	c.clock.lead = newLeadControl(c.dt, c.cfg.MarginLow, c.cfg.MarginHigh, 20*c.dt)
	c.clock.lead.corrections = corrections
	c.fetch.active = false
	if m.Tick == 0 {
		c.newCoreAt(0)
		c.phase = playing
		return nil
	}
	c.phase = loading
	c.startFetch(now, m.Tick, m.Transfer, false)
	return nil
}

// newCoreAt makes the rollback machine start from c.w as the world after
// tick t, with the decoder's roster (at t) for who is present and their
// inputs.
func (c *Client[I]) newCoreAt(t uint32) {
	n := game.MaxPlayers
	k := newCore(c.g, c.w, c.me, n, c.it.Size(), int(c.window)+c.cfg.InputDelay+2, c.it.Unpack)
	k.onVerified = c.cfg.OnVerified
	k.onDesync = c.cfg.OnDesync
	k.repairs = !c.cfg.NoRepair
	if k.lockstep = c.cfg.Lockstep; k.lockstep {
		k.snaps = nil // a lockstep client keeps no snapshot
	}
	if t > 0 {
		k.verified, k.confThru, k.predicted = t, t, t
		k.save(t)
		r := c.rx.dec.Roster()
		for p := range n {
			if in := r.Input(uint8(p)); in != nil {
				k.presentV[p] = true
				copy(k.in(k.lastConf, p), in)
			}
		}
	}
	if old := c.core; old != nil {
		k.rollbacks, k.rolledBack, k.maxDepth = old.rollbacks, old.rolledBack, old.maxDepth
		k.desyncs, k.steps = old.desyncs, old.steps
		// The old machine's predictions are thrown away unverified (the
		// ticks up to t were skipped, the later ones are predicted again
		// from the new world): its open effects are cancelled, and the
		// events the view has not read yet go on to the new machine.
		old.fx.discard(0)
		k.fx.takeQueue(&old.fx)
	}
	c.recordStart(k, t)
	c.core = k
}

// fetched is called when the fetched world is in c.w: a repair resumes
// from the repaired tick; a load starts the rollback machine there.
func (c *Client[I]) fetched(now time.Time) error {
	f := &c.fetch
	t := f.tick
	c.debugCompare(t, f.repair)
	if f.repair {
		k := c.core
		k.save(t)
		k.broken = 0
		k.predicted = t
		c.st.Resyncs++
		// The effects the client's own simulation of t raised stand: the
		// tick is not stepped again (effects.go).
		k.fx.verify(t)
		if k.onVerified != nil {
			k.onVerified(t, k.hashOf(t))
		}
		k.recordTick(t)
		return c.decode(now)
	}
	c.newCoreAt(t)
	if c.cfg.OnVerified != nil {
		// The world came checked against the server's full hash of t.
		c.cfg.OnVerified(t, c.core.hashOf(t))
	}
	c.phase = playing
	c.ho.rebased = nil
	return c.decode(now)
}

// startRepair begins the repair of a tick whose hash still differed after
// resimulation: the world goes back to that tick (as the client computed
// it), and the pages that differ from the server's come.
func (c *Client[I]) startRepair(now time.Time) {
	k := c.core
	t := k.broken
	if !k.lockstep { // a lockstep world stopped at t
		k.restore(t)
	}
	k.predicted = t
	if c.cfg.DebugDesync != nil {
		c.debugRepair(now, t)
		return
	}
	c.startFetch(now, t, 0, true)
}

// sendAcks acknowledges the server's ticks while the client loads its
// world (a ClientInputs without inputs).
func (c *Client[I]) sendAcks(now time.Time) error {
	m := codec.ClientInputs{Tag: c.tag, First: c.rx.decodeNext, Ack: c.rx.recvWin.Ack()}
	c.clock.lastSend = now
	return c.send(m.Append(c.sbuf[:0]))
}

// maxEarly is how many datagrams that arrive before the welcome are kept.
const maxEarly = 8

// stashEarly keeps a copy of a datagram that came before the welcome.
func (c *Client[I]) stashEarly(b []byte) {
	if len(c.join.early) >= maxEarly {
		c.st.BadDatagrams++
		return
	}
	c.join.early = append(c.join.early, append([]byte(nil), b...))
}

// replayEarly handles the datagrams that came before the welcome, once it
// came.
func (c *Client[I]) replayEarly(now time.Time) error {
	if c.phase == connecting || len(c.join.early) == 0 {
		return nil
	}
	early := c.join.early
	c.join.early = nil
	for _, b := range early {
		if err := c.handle(now, b); err != nil {
			c.st.BadDatagrams++
		}
	}
	return nil
}
