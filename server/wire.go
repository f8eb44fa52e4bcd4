package server

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/transport"
)

// wireState is what the server keeps for the wire: the tick encoder every
// client's tick stream comes from, and reusable buffers.
type wireState struct {
	enc         *codec.TickEncoder
	fingerprint uint64
	base        uint64 // game.BaseFingerprint: a hello that takes our settings
	settings    []byte // the game's match settings, sent with every welcome
	xferIDs     uint32 // the last welcome's transfer id
	rbuf        []byte
	sbuf        []byte
	msg         codec.ServerTicks
	inputs      inputs.Decoder
	due         []uint32
	tags        uint8
	stamped     transport.Stamped // the Conn, when it says when datagrams arrived
	now         time.Time         // the time of the Update receiving (pongHold)
}

func (s *Server[I]) initWire() error {
	s.wire.enc = codec.NewTickEncoder(s.it.Schema, uint8(s.cfg.HashBits))
	s.wire.fingerprint = game.Fingerprint(s.it.Fingerprint(), s.w.Layout().Hash(), s.tickRate)
	s.wire.base = game.BaseFingerprint(s.it.Fingerprint())
	if sp, ok := game.As[game.SettingsProvider](s.g); ok {
		s.wire.settings = append([]byte(nil), sp.MatchSettings()...)
		if len(s.wire.settings) > codec.MaxSettings {
			return fmt.Errorf("server: match settings of %d bytes, at most %d: %w", len(s.wire.settings), codec.MaxSettings, ErrConfig)
		}
	}
	s.wire.stamped, _ = s.conn.(transport.Stamped)
	s.wire.rbuf = make([]byte, transport.MaxDatagram+1)
	s.wire.sbuf = make([]byte, 0, transport.MaxDatagram)
	s.wire.msg.Ticks = make([]codec.TickBody, 0, codec.MaxTicksPerMessage)
	return nil
}

// Settings returns the match settings the server sends with every
// welcome (the game's game.SettingsProvider; nil for a game without).
func (s *Server[I]) Settings() []byte { return s.wire.settings }

// Fingerprint returns the game compatibility fingerprint the server expects
// in a hello.
func (s *Server[I]) Fingerprint() uint64 { return s.wire.fingerprint }

// mustEncode panics on an encoder error: the server only queues events and
// inputs that are valid, so an error is a broken invariant.
func (s *Server[I]) mustEncode(err error) {
	if err != nil {
		panic(fmt.Sprintf("server: tick encoder: %v", err))
	}
}

// receive handles every waiting datagram, each at now, or at when it
// arrived when the Conn says (transport.Stamped) and that was between the
// last Update (prev) and now: a datagram that waited in a queue for its
// room's tick is handled as of its arrival, so that the margins of inputs
// and the round trips of acks are the network's, not the queue's.
func (s *Server[I]) receive(prev, now time.Time) error {
	s.wire.now = now
	for {
		var (
			n    int
			from transport.Addr
			at   time.Time
			err  error
		)
		if s.wire.stamped != nil {
			n, from, at, err = s.wire.stamped.RecvStamped(s.wire.rbuf)
		} else {
			n, from, err = s.conn.Recv(s.wire.rbuf)
		}
		if errors.Is(err, transport.ErrWouldBlock) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("server: receive: %w", err)
		}
		s.stats.DatagramsIn++
		s.stats.BytesIn += uint64(n)
		if n > transport.MaxDatagram {
			s.stats.BadDatagrams++
			continue
		}
		switch {
		case at.IsZero() || !at.Before(now):
			at = now
		case at.Before(prev):
			at = prev
		}
		s.handle(at, from, s.wire.rbuf[:n])
	}
}

// pongHold is how long a ping that arrived at at waited here before the
// Update that answers it (0 if unstamped): the pong's time, the ping's
// send time in the player's clock, moves later by as much, so the round
// trip the player measures is the network's and not the wait for its
// room's tick phase (a drained socket answers pings at its next drain),
// as QUIC's ack delay is taken out of its RTT.
func (s *Server[I]) pongHold(at time.Time) time.Duration {
	return max(s.wire.now.Sub(at), 0)
}

// send sends one datagram, counting it. A failed send is like a lost
// datagram, except for a closed Conn.
func (s *Server[I]) send(to transport.Addr, b []byte) error {
	s.stats.DatagramsOut++
	s.stats.BytesOut += uint64(len(b))
	if p := s.byAddr[to]; p != nil {
		p.adm.bytesOut += uint64(len(b))
	}
	if err := s.conn.Send(to, b); err != nil && errors.Is(err, transport.ErrClosed) {
		return fmt.Errorf("server: send: %w", err)
	}
	return nil
}

func (s *Server[I]) handle(now time.Time, from transport.Addr, b []byte) {
	typ, tag, err := codec.Peek(b)
	if err != nil {
		s.stats.BadDatagrams++
		return
	}
	p := s.byAddr[from]
	if p != nil {
		p.adm.bytesIn += uint64(len(b))
	}
	if typ == codec.TypeHello && s.fin.on {
		if p != nil && !p.byeAt.IsZero() {
			s.onEnded(now, p)
		}
		return // the match is over: nobody joins (end.go)
	}
	if typ == codec.TypeHello {
		s.onHello(now, from, b, p)
		if q := s.byAddr[from]; p == nil && q != nil {
			q.adm.bytesIn += uint64(len(b)) // the hello that admitted it
		}
		return
	}
	if p == nil || tag != p.tag {
		s.stats.BadDatagrams++
		return
	}
	p.welcomed = true // it speaks with the tag of its welcome
	if !p.byeAt.IsZero() {
		s.onEnded(now, p) // the match ended: its goodbye again (end.go)
		return
	}
	if p.spectator {
		s.onSpectator(now, p, typ, b)
		return
	}
	s.handlePlayer(now, p, typ, b)
}

// handlePlayer handles a datagram of type typ from p.
func (s *Server[I]) handlePlayer(now time.Time, p *player, typ codec.Type, b []byte) {
	switch typ {
	case codec.TypeClientInputs:
		if s.onInputs(now, p, b) != nil {
			s.stats.BadDatagrams++
			return
		}
	case codec.TypePing:
		m, _, err := codec.ParsePing(b)
		if err != nil {
			s.stats.BadDatagrams++
			return
		}
		pong := codec.Pong{Tag: p.tag, ID: m.ID, Time: m.Time + uint64(s.pongHold(now))}
		_ = s.send(p.addr, pong.Append(s.wire.sbuf[:0]))
	case codec.TypeChat:
		s.onChat(now, p, b)
	case codec.TypeBye:
		if _, _, err := codec.ParseBye(b); err != nil {
			s.stats.BadDatagrams++
			return
		}
		p.leaving = true
	case codec.TypeWorldAck:
		if s.onWorldAck(now, p, b) != nil {
			s.stats.BadDatagrams++
			return
		}
	case codec.TypePageHashRequest:
		if s.onPageHashRequest(now, p, b) != nil {
			s.stats.BadDatagrams++
			return
		}
	case codec.TypePageRequest:
		if s.onPageRequest(now, p, b) != nil {
			s.stats.BadDatagrams++
			return
		}
	case codec.TypeModule:
		if s.onModuleRequest(now, p, b) != nil {
			s.stats.BadDatagrams++
			return
		}
	default:
		s.stats.BadDatagrams++ // a server's message, sent to the server
		return
	}
	p.lastHeard = now
}

func (s *Server[I]) refuse(to transport.Addr, r codec.Reason) {
	s.stats.Refused++
	m := codec.Refuse{Reason: r}
	if n, ok := game.As[game.Namer](s.g); ok && r == codec.ReasonGame {
		m.Game = n.GameName() // the player can say which game we play
	}
	_ = s.send(to, m.Append(s.wire.sbuf[:0]))
}

// onInputs queues a player's inputs by tick and takes its ack of ticks.
func (s *Server[I]) onInputs(now time.Time, p *player, b []byte) error {
	m, _, err := codec.ParseClientInputs(b, s.tick)
	if err != nil {
		return err
	}
	if int32(m.Ack.Next-p.res.Base()) >= 0 {
		p.res.OnAck(m.Ack, now)
		p.lastAck = m.Ack
	}
	// Decoding is the dearest part of taking inputs: skip it when every
	// input in the datagram has run already or is held (resends).
	need := false
	for i := 0; i < m.Count && !need; i++ {
		u := m.First + uint32(i)
		need = int32(u-s.tick) > 0 && p.qAt[u&s.qmask] != u
	}
	if !need {
		for i := 0; i < m.Count; i++ {
			s.takeInput(now, p, m.First+uint32(i), nil) // lateness only
		}
		p.inWin.AdvanceTo(s.tick + 1)
		return nil
	}
	d := &s.wire.inputs
	d.Reset(s.it.Schema, m.Payload, m.Count)
	for d.Next() {
		s.takeInput(now, p, m.First+uint32(d.Index()), d.Input())
	}
	if err = d.Err(); err != nil {
		err = fmt.Errorf("server: inputs: %w", err)
	}
	p.inWin.AdvanceTo(s.tick + 1)
	return err
}

// takeInput queues player p's input for tick u, noting how early it came.
// in may be nil for a tick that has run or whose input is held.
func (s *Server[I]) takeInput(now time.Time, p *player, u uint32, in []byte) {
	if p.inputFrom == 0 {
		p.inputFrom = u
	}
	if int32(u-s.tick) <= 0 {
		// Its tick has run: too late. Note how late the first copy was.
		if s.started && p.qAt[u&s.qmask] != u && int32(s.tick-u) < int32(s.qmask) {
			p.qAt[u&s.qmask] = u
			p.noteMargin(s.tickTime(u).Sub(now))
		}
		return
	}
	if u-s.tick > s.window {
		return // further ahead than any client predicts
	}
	slot := u & s.qmask
	if p.qAt[slot] == u {
		return
	}
	copy(p.q[slot], in)
	p.qAt[slot] = u
	p.inWin.Add(u)
	if s.started {
		p.noteMargin(s.tickTime(u).Sub(now))
	}
}

// welcomeOrBackOff resends p's welcome while it rebases (until it
// acknowledges a tick past the welcome's) and reports whether to send it
// nothing now: it has been silent for four ticks and a round trip, and
// was sent something less than SilentResend ago.
func (s *Server[I]) welcomeOrBackOff(now time.Time, p *player) bool {
	if p.rebasing {
		if int32(p.res.Base()-(p.welcomeTick+1)) > 0 {
			p.rebasing = false
		} else if now.Sub(p.welcomeSent) >= s.cfg.WelcomeResend {
			p.welcomeSent = now
			s.sendWelcome(p)
		}
	}
	silent := now.Sub(p.lastHeard) > 4*s.dt+p.res.RTT()
	return silent && now.Sub(p.lastSend) < s.cfg.SilentResend
}

// sendTicks sends every player the ticks it lacks: fresh ones at once,
// lost or overdue ones again (reliable.Resender decides), oldest first, as
// many as fit in one datagram.
func (s *Server[I]) sendTicks(now time.Time) error {
	oldest := s.oldestKept()
	for _, p := range s.players {
		if p == nil || p.leaving || p.addr == "" || !p.byeAt.IsZero() {
			continue // gone, awaited (resume.go), or said goodbye to (end.go)
		}
		if int32(oldest-p.res.Base()) > 0 {
			// The player lacks ticks no longer kept: it catches up from
			// the world of the last tick (the pages its world lacks)
			// and every tick since.
			s.rebase(now, p)
		}
		if s.welcomeOrBackOff(now, p) {
			continue // back off from a player who does not answer
		}
		if err := s.sendTo(now, p); err != nil {
			return err
		}
	}
	return s.sendSpectators(now)
}

// sendTo sends p the ticks it lacks up to the last run.
func (s *Server[I]) sendTo(now time.Time, p *player) error { return s.sendUpTo(now, p, s.tick) }

// sendUpTo sends p the ticks it lacks up to tick upto.
func (s *Server[I]) sendUpTo(now time.Time, p *player, upto uint32) error {
	m := &s.wire.msg
	m.Tag = p.tag
	m.Ticks = m.Ticks[:0]
	m.Ack = p.inWin.Ack()
	m.HasMargin = false
	if d, ok := p.margin(); ok && (s.tick%4 == 0 || d < 0) {
		m.HasMargin = true
		m.Margin = int32(d / time.Millisecond)
	}
	s.wire.due = p.res.Due(now, s.wire.due[:0])
	s.wire.due = p.gaps(now, s.dt, s.wire.due)
	size := 24 // header, ack, margin, count: generous
	add := func(t uint32) bool {
		body := s.hist[t&s.hmask].bodyFor(int(p.id), s.scn.on)
		if body == nil {
			return true // not this player's tick (scenes.go)
		}
		if size+len(body)+8 > transport.MaxDatagram || len(m.Ticks) == codec.MaxTicksPerMessage {
			return false
		}
		size += len(body) + 8
		m.Ticks = append(m.Ticks, codec.TickBody{Tick: t, Body: body})
		p.res.Sent(t, now)
		return true
	}
	full := false
	for _, t := range s.wire.due {
		if !add(t) {
			full = true
			break
		}
	}
	fresh := p.res.Next()
	// Redundancy: the few ticks before the fresh ones ride again while
	// unacknowledged, so that a single loss costs nothing.
	for t := fresh - uint32(s.cfg.Redundancy); !full && int32(t-fresh) < 0; t++ {
		if int32(t-p.res.Base()) < 0 || p.res.Acked(t) || slices.Contains(s.wire.due, t) {
			continue
		}
		if len(m.Ticks) > 0 && int32(t-m.Ticks[len(m.Ticks)-1].Tick) <= 0 {
			continue
		}
		full = !add(t)
	}
	for t := fresh; !full && int32(t-upto) <= 0; t++ {
		if !add(t) {
			break
		}
	}
	if len(m.Ticks) == 0 {
		return nil
	}
	m.First = m.Ticks[0].Tick
	p.lastSend = now
	return s.send(p.addr, m.Append(s.wire.sbuf[:0]))
}
