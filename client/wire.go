package client

import (
	"errors"
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// bodyRing is how many received tick bodies wait for decoding at most:
// past a gap, and while a world loads (68 s at 60 Hz: the ticks since the
// welcome are acknowledged and kept here however long the world takes, so
// the server's 4 s history does not bound a load).
const bodyRing = 4096

// receive handles every waiting datagram.
func (c *Client[I]) receive(now time.Time) error {
	for {
		n, from, err := c.conn.Recv(c.rbuf)
		if errors.Is(err, transport.ErrWouldBlock) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("client: receive: %w", err)
		}
		c.st.DatagramsIn++
		c.st.BytesIn += uint64(n)
		if from != c.conn.RemoteAddr() || n > transport.MaxDatagram {
			c.st.BadDatagrams++
			continue
		}
		if err := c.handle(now, c.rbuf[:n]); err != nil {
			if errors.Is(err, ErrRefused) || errors.Is(err, ErrKicked) {
				return err
			}
			c.st.BadDatagrams++
		}
	}
}

func (c *Client[I]) handle(now time.Time, b []byte) error {
	typ, tag, err := codec.Peek(b)
	if err != nil {
		return err
	}
	switch typ {
	case codec.TypeWelcome:
		if err := c.onWelcome(now, b); err != nil {
			return err
		}
		return c.replayEarly(now)
	case codec.TypeRefuse:
		if c.phase != connecting {
			return nil
		}
		m, _, err := codec.ParseRefuse(b)
		if err != nil {
			return err
		}
		return &RefusedError{Reason: m.Reason, Game: m.Game}
	}
	switch c.phase {
	case gettingModule:
		return c.handleGettingModule(now, typ, tag, b)
	case connecting:
		// It may have overtaken the welcome (the world comes right
		// after it): keep it for then.
		c.stashEarly(b)
		return nil
	}
	if (c.phase != playing && c.phase != loading) || tag != c.tag {
		return fmt.Errorf("client: stray %v datagram", typ)
	}
	c.clock.lastHeard = now
	switch typ {
	case codec.TypeServerTicks:
		return c.onTicks(now, b)
	case codec.TypeWorldChunk:
		return c.onChunk(now, b)
	case codec.TypePageHashes:
		return c.onPageHashes(now, b)
	case codec.TypePong:
		m, _, err := codec.ParsePong(b)
		if err != nil {
			return err
		}
		// Time is our own clock at the ping (any ping: with a round trip
		// longer than PingInterval, pongs answer earlier pings).
		if sent := c.clock.helloFirst.Add(time.Duration(m.Time)); !sent.After(now) && !sent.Before(c.clock.pongSent) {
			c.clock.rtt = now.Sub(sent)
			c.clock.pongSent = sent
			// The lead started from the hello's round trip, which lost
			// hellos stretch: set it again from the first real measure.
			if c.clock.lead.started && !c.clock.leadMeasured {
				c.clock.leadMeasured = true
				if d := c.clock.rtt - c.clock.leadRTT; d > c.dt || d < -c.dt {
					// From when the newest tick arrived: it is at most
					// a tick old then, and older now.
					c.clock.lead.start(c.rx.latestAt, c.rx.latest, c.clock.rtt, int64(c.core.predicted))
					c.clock.lead.advance(now)
				}
			}
		}
	case codec.TypePing:
		return c.onPing(b)
	case codec.TypeBye:
		return c.onBye(now, b)
	case codec.TypeHandover:
		return c.onHandover(b)
	case codec.TypeWaiting:
		return c.onWaiting(b)
	case codec.TypeChat:
		return c.onChat(now, b)
	}
	return nil
}

// onTicks takes a ServerTicks: the ack of our inputs, the margin report,
// and tick bodies, which are decoded in order and confirmed to the core.
func (c *Client[I]) onTicks(now time.Time, b []byte) error {
	m := &c.rx.ticksMsg
	if _, err := m.Unmarshal(b, c.rx.latest); err != nil {
		return err
	}
	if int32(m.Ack.Next-c.tx.inputAck) > 0 {
		c.tx.inputAck = m.Ack.Next
	}
	if m.HasMargin && c.core != nil {
		c.clock.lead.feedback(now, time.Duration(m.Margin)*time.Millisecond, c.clock.rtt, int64(c.core.predicted))
	}
	for _, t := range m.Ticks {
		if int32(t.Tick-c.rx.latest) > 0 {
			c.rx.latest, c.rx.latestAt = t.Tick, now
		}
		if c.waiting.set != 0 && int32(t.Tick-c.waiting.tick) > 0 {
			c.waiting.set = 0 // the match went on
		}
		d := t.Tick - c.rx.decodeNext
		if int32(d) < 0 || d > c.rx.bmask {
			continue
		}
		slot := t.Tick & c.rx.bmask
		if c.rx.bodyAt[slot] != t.Tick {
			buf := c.rx.bodies[slot]
			if buf == nil {
				buf = c.spareBody()
			}
			c.rx.bodies[slot] = append(buf[:0], t.Body...)
			c.rx.bodyAt[slot] = t.Tick
		}
		c.rx.recvWin.Add(t.Tick)
	}
	if c.phase != playing || c.fetch.active {
		return nil // the ticks wait for the world
	}
	return c.decode(now)
}

// spareBody returns an empty buffer for a received tick body: one a
// decoded tick gave back, or nil (append makes one of the body's size).
func (c *Client[I]) spareBody() []byte {
	if n := len(c.rx.spare); n > 0 {
		b := c.rx.spare[n-1]
		c.rx.spare = c.rx.spare[:n-1]
		return b
	}
	return nil
}

// decode decodes the waiting tick bodies in order and confirms them to
// the core, as far as its rings have room: the rest wait for Update to
// fold the confirmed ticks in (fold), so no tick is simulated here, in
// datagram intake.
func (c *Client[I]) decode(now time.Time) error {
	size := c.it.Size()
	for c.rx.bodyAt[c.rx.decodeNext&c.rx.bmask] == c.rx.decodeNext && c.core.space() > 0 {
		t := c.rx.decodeNext
		slot := t & c.rx.bmask
		c.rx.bodyAt[slot] = 0
		if err := c.rx.dec.DecodeTick(c.rx.bodies[slot], &c.rx.tk); err != nil {
			// A body we cannot read (a forged or corrupted datagram):
			// drop it, and forget what we acknowledged past it so the
			// server sends it again.
			c.rx.recvWin.Reset(t)
			return fmt.Errorf("client: tick %d: %w", t, err)
		}
		c.rx.events = c.rx.events[:0]
		for _, e := range c.rx.tk.Events {
			k := game.Join
			if e.Kind == codec.EventLeave {
				k = game.Leave
			}
			c.rx.events = append(c.rx.events, game.Event{Kind: k, Player: game.PlayerID(e.Player)})
		}
		r := c.rx.dec.Roster()
		for p := range game.MaxPlayers {
			dst := c.rx.conf[p*size : (p+1)*size]
			if in := r.Input(uint8(p)); in != nil {
				copy(dst, in)
			} else {
				clear(dst)
			}
		}
		if c.rx.tk.Late.Has(uint8(c.me)) {
			c.st.LateInputs++
		}
		if c.it.Schema.HasPrivate() {
			c.ownPrivate(t) // private.go
		}
		c.core.confirm(t, c.rx.events, c.rx.conf, c.rx.tk.Hash, c.hashBits)
		// The body is spent: its buffer serves the next tick to arrive,
		// so the ring holds only as many buffers as bodies wait at once.
		c.rx.spare = append(c.rx.spare, c.rx.bodies[slot])
		c.rx.bodies[slot] = nil
		c.rx.decodeNext++
	}
	c.rx.recvWin.AdvanceTo(c.rx.decodeNext)
	if !c.clock.lead.started && c.rx.decodeNext > 1 {
		c.clock.lead.start(c.rx.latestAt, c.rx.latest, c.clock.rtt, int64(c.core.predicted))
		c.clock.lead.advance(now)
		// The ticks up to where the clock starts are simulated at once to
		// catch up; they have run on the server already.
		c.tx.firstOwn = uint32(c.clock.lead.tick(now)) + 1
		c.clock.leadRTT = c.clock.rtt
		c.clock.leadMeasured = c.clock.pongSent.After(c.clock.helloFirst)
	}
	return nil
}

// sendInputs sends every input the server has not acknowledged, up to the
// newest one, with our ack of the server's ticks.
func (c *Client[I]) sendInputs(now time.Time) error {
	if c.cfg.Spectate {
		return c.sendAcks(now) // a spectator has no input
	}
	last := c.lastOwn()
	// Ticks before firstOwn ran on the server before we played: it
	// settled them without us, and sending them would only say how late
	// they are, which is no news about our lead.
	first := max(c.tx.inputAck, c.tx.firstOwn, 1)
	if int32(first-last) > 0 && last > 0 {
		// The server has settled every tick we have an input for: we are
		// behind. Send the newest anyway, so that the server reports how
		// late it is and our lead grows.
		first = last
	}
	slots := c.core.mask + 1
	if int32(last-first) >= int32(slots) {
		first = last - slots + 1
	}
	per := 1 + c.it.Size() + 1 // worst case bytes per input, generously
	maxCount := uint32(min(codec.MaxInputsPerMessage, (transport.MaxDatagram-16)/per))
	if int32(last-first) >= int32(maxCount) {
		last = first + maxCount - 1 // the rest go in the next datagrams
	}
	c.tx.sendIns = c.tx.sendIns[:0]
	for u := first; int32(u-last) <= 0; u++ {
		c.tx.sendIns = append(c.tx.sendIns, c.core.ownRef(u))
	}
	m := codec.ClientInputs{Tag: c.tag, First: first, Ack: c.rx.recvWin.Ack(), Count: len(c.tx.sendIns)}
	if len(c.tx.sendIns) == 0 {
		m.First = c.rx.decodeNext
	}
	if len(c.tx.sendIns) > 0 {
		m.Payload = c.it.AppendInputs(c.tx.payload[:0], c.tx.sendIns)
		c.tx.payload = m.Payload
	}
	c.clock.lastSend = now
	return c.send(m.Append(c.sbuf[:0]))
}

// onPing answers the server's ping.
func (c *Client[I]) onPing(b []byte) error {
	m, _, err := codec.ParsePing(b)
	if err != nil {
		return err
	}
	p := codec.Pong{Tag: c.tag, ID: m.ID, Time: m.Time}
	return c.send(p.Append(c.sbuf[:0]))
}
