package codec

import (
	"errors"
	"math/rand/v2"
	"time"

	rwcodec "github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/tools/doomdemo"
	"github.com/rewindnet/rewind/transport"
)

var errLink = errors.New("link simulation did not deliver every tick")

// simulateLink plays the match to the client in slot 0's seat over a link
// with benchRTT and benchLoss each way, in made-up time with a seeded RNG:
// every tick the server sends a ServerTicks with the fresh tick and the
// resends due (or every unacknowledged tick when resendAll), and the client
// sends a ClientInputs with every input the server has not acknowledged.
// It models codec's Resender policies alone, not server.Server: the
// server's default adds the tick before each fresh one while it is
// unacknowledged and resends a lost tick with every datagram until
// acknowledged (rewind-bench match measures the server itself).
func simulateLink(s *inputs.Schema, ticks []doomdemo.Tick, bodies [][]byte, pack packFunc, resendAll bool) Link {
	l := &linkSim{
		schema:    s,
		ticks:     ticks,
		bodies:    bodies,
		pack:      pack,
		rng:       rand.New(rand.NewPCG(1, 2)),
		oneWay:    benchRTT / 2,
		res:       reliable.NewResender(reliable.ResendConfig{Selective: !resendAll}, 0),
		firstSent: make([]time.Time, len(bodies)),
		arrived:   make([]time.Time, len(bodies)),
	}
	l.got.Reset(0)
	l.inAck.Reset(benchLead)
	l.clientSeen.Next = benchLead
	step := time.Second / benchTickRate
	t0 := time.Unix(0, 0)
	end := len(bodies) + 200
	for i := 0; i < end; i++ {
		now := t0.Add(time.Duration(i) * step)
		l.serverSend(i, now)
		l.clientSend(i, now)
		l.deliver(i, now)
	}
	return l.result(step)
}

// linkSim is simulateLink's state: both ends' windows, the datagrams in
// flight each way and when each tick was first sent and first arrived.
type linkSim struct {
	schema *inputs.Schema
	ticks  []doomdemo.Tick
	bodies [][]byte
	pack   packFunc
	rng    *rand.Rand
	oneWay time.Duration

	res        *reliable.Resender
	got        reliable.RecvWindow // client: ticks held
	inAck      reliable.RecvWindow // server: client inputs held
	clientSeen reliable.Ack        // client: latest server ack of its inputs

	down, up           []linkPkt
	downBytes, upBytes int
	firstSent, arrived []time.Time
	inbuf              [inputs.MaxSize]byte
	held               [][]byte
	due                []uint32
}

// serverSend sends tick i's datagram: the fresh tick plus the resends
// due, as many as fit in the MTU (lost with benchLoss).
func (l *linkSim) serverSend(i int, now time.Time) {
	var tb []rwcodec.TickBody
	if i < len(l.bodies) {
		tb = append(tb, rwcodec.TickBody{Tick: uint32(i), Body: l.bodies[i]})
		l.firstSent[i] = now
	}
	l.due = l.res.Due(now, l.due[:0])
	m := rwcodec.ServerTicks{Tag: 1, Ack: l.inAck.Ack(), HasMargin: i%benchTickRate == 0, Margin: 20}
	for _, q := range l.due {
		if int(q) != i {
			tb = append(tb, rwcodec.TickBody{Tick: q, Body: l.bodies[q]})
		}
	}
	sortTickBodies(tb)
	for len(tb) > 0 {
		m.Ticks, m.First = tb, tb[0].Tick
		if m.Length() <= transport.MaxDatagram {
			break
		}
		tb = tb[:len(tb)-1]
	}
	if len(tb) == 0 {
		return
	}
	for _, t := range tb {
		l.res.Sent(t.Tick, now)
	}
	b := m.Append(nil)
	l.downBytes += len(b)
	if l.rng.Float64() >= benchLoss {
		l.down = append(l.down, linkPkt{now.Add(l.oneWay), b})
	}
}

// clientSend sends the client's datagram of tick i: its inputs from the
// server's ack to its lead. (Slot 0 is a seat that demos take in turn;
// the client sends a datagram every tick, with no inputs while its seat
// is empty.)
func (l *linkSim) clientSend(i int, now time.Time) {
	clientTick := i + benchLead
	l.held = l.held[:0]
	first := l.clientSeen.Next
	for t := int(first); t <= clientTick && t < len(l.ticks) && l.ticks[t].Present[0]; t++ {
		l.held = append(l.held, append([]byte(nil), l.pack(l.inbuf[:], &l.ticks[t], 0)...))
	}
	ci := rwcodec.ClientInputs{Tag: 1, First: first, Ack: l.got.Ack(), Count: len(l.held), Payload: l.schema.AppendInputs(nil, l.held)}
	b := ci.Append(nil)
	l.upBytes += len(b)
	if l.rng.Float64() >= benchLoss {
		l.up = append(l.up, linkPkt{now.Add(l.oneWay), b})
	}
}

// deliver hands each end the datagrams due by now (tick i).
func (l *linkSim) deliver(i int, now time.Time) {
	l.down = deliver(l.down, now, func(b []byte) {
		m, _, err := rwcodec.ParseServerTicks(b, uint32(i))
		if err != nil {
			panic(err)
		}
		for _, t := range m.Ticks {
			if l.got.Add(t.Tick) || l.arrived[t.Tick].IsZero() {
				if l.arrived[t.Tick].IsZero() {
					l.arrived[t.Tick] = now
				}
			}
		}
		if int32(m.Ack.Next-l.clientSeen.Next) > 0 {
			l.clientSeen = m.Ack
		}
	})
	l.up = deliver(l.up, now, func(b []byte) {
		m, _, err := rwcodec.ParseClientInputs(b, uint32(i))
		if err != nil {
			panic(err)
		}
		for k := 0; k < m.Count; k++ {
			l.inAck.Add(m.First + uint32(k))
		}
		l.res.OnAck(m.Ack, now)
	})
}

// result sums the run up: a tick can be applied once it and every tick
// before it arrived; it is late by how much later than the one-way delay
// (rounded up to a tick of step) that is.
func (l *linkSim) result(step time.Duration) Link {
	var r Link
	late := 0
	var applied time.Time
	var lateSum time.Duration
	base := l.oneWay.Round(step)
	if base < l.oneWay {
		base += step
	}
	for i := range l.bodies {
		if l.arrived[i].IsZero() {
			panic(errLink)
		}
		if l.arrived[i].After(applied) {
			applied = l.arrived[i]
		}
		extra := applied.Sub(l.firstSent[i]) - base
		if extra > 0 {
			late++
			lateSum += extra
		}
		r.Worst = max(r.Worst, extra)
	}
	secs := float64(len(l.bodies)) / benchTickRate
	r.Down = float64(l.downBytes) / secs
	r.Up = float64(l.upBytes) / secs
	r.LateFrac = float64(late) / float64(len(l.bodies))
	if late > 0 {
		r.MeanLate = lateSum / time.Duration(late)
	}
	return r
}

// linkPkt is a datagram in flight.
type linkPkt struct {
	at  time.Time
	buf []byte
}

// deliver hands fn the datagrams due by now and keeps the rest.
func deliver(q []linkPkt, now time.Time, fn func([]byte)) []linkPkt {
	kept := q[:0]
	for _, p := range q {
		if p.at.After(now) {
			kept = append(kept, p)
			continue
		}
		fn(p.buf)
	}
	return kept
}

func sortTickBodies(tb []rwcodec.TickBody) {
	for i := 1; i < len(tb); i++ {
		for j := i; j > 0 && int32(tb[j].Tick-tb[j-1].Tick) < 0; j-- {
			tb[j], tb[j-1] = tb[j-1], tb[j]
		}
	}
}
