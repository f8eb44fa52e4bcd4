package codec

import (
	"errors"
	"math/rand/v2"
	"time"

	rwcodec "github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/doomdemo"
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
// acknowledged (rewind bench match measures the server itself).
func simulateLink(s *inputs.Schema, ticks []doomdemo.Tick, bodies [][]byte, pack packFunc, resendAll bool) Link {
	rng := rand.New(rand.NewPCG(1, 2))
	step := time.Second / benchTickRate
	oneWay := benchRTT / 2
	t0 := time.Unix(0, 0)
	res := reliable.NewResender(reliable.ResendConfig{Selective: !resendAll}, 0)
	var got reliable.RecvWindow
	got.Reset(0)
	var inAck reliable.RecvWindow // server: client inputs held
	inAck.Reset(benchLead)
	var clientSeen reliable.Ack // client: latest server ack of its inputs
	clientSeen.Next = benchLead
	var down, up []linkPkt
	var downBytes, upBytes int
	firstSent := make([]time.Time, len(bodies))
	arrived := make([]time.Time, len(bodies))
	var inbuf [inputs.MaxSize]byte
	var inputs [][]byte
	var due []uint32
	end := len(bodies) + 200
	for i := 0; i < end; i++ {
		now := t0.Add(time.Duration(i) * step)
		// Server: fresh tick plus resends, up to the MTU.
		var tb []rwcodec.TickBody
		if i < len(bodies) {
			tb = append(tb, rwcodec.TickBody{Tick: uint32(i), Body: bodies[i]})
			firstSent[i] = now
		}
		due = res.Due(now, due[:0])
		m := rwcodec.ServerTicks{Tag: 1, Ack: inAck.Ack(), HasMargin: i%benchTickRate == 0, Margin: 20}
		for _, q := range due {
			if int(q) != i {
				tb = append(tb, rwcodec.TickBody{Tick: q, Body: bodies[q]})
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
		if len(tb) > 0 {
			for _, t := range tb {
				res.Sent(t.Tick, now)
			}
			b := m.Append(nil)
			downBytes += len(b)
			if rng.Float64() >= benchLoss {
				down = append(down, linkPkt{now.Add(oneWay), b})
			}
		}
		// Client: inputs from the server's ack to its lead.
		// (Slot 0 is a seat that demos take in turn; the client sends a
		// datagram every tick, with no inputs while its seat is empty.)
		clientTick := i + benchLead
		{
			inputs = inputs[:0]
			first := clientSeen.Next
			for t := int(first); t <= clientTick && t < len(ticks) && ticks[t].Present[0]; t++ {
				inputs = append(inputs, append([]byte(nil), pack(inbuf[:], &ticks[t], 0)...))
			}
			ci := rwcodec.ClientInputs{Tag: 1, First: first, Ack: got.Ack(), Count: len(inputs), Payload: s.AppendInputs(nil, inputs)}
			b := ci.Append(nil)
			upBytes += len(b)
			if rng.Float64() >= benchLoss {
				up = append(up, linkPkt{now.Add(oneWay), b})
			}
		}
		// Deliveries due by now.
		down = deliver(down, now, func(b []byte) {
			m, _, err := rwcodec.ParseServerTicks(b, uint32(i))
			if err != nil {
				panic(err)
			}
			for _, t := range m.Ticks {
				if got.Add(t.Tick) || arrived[t.Tick].IsZero() {
					if arrived[t.Tick].IsZero() {
						arrived[t.Tick] = now
					}
				}
			}
			if int32(m.Ack.Next-clientSeen.Next) > 0 {
				clientSeen = m.Ack
			}
		})
		up = deliver(up, now, func(b []byte) {
			m, _, err := rwcodec.ParseClientInputs(b, uint32(i))
			if err != nil {
				panic(err)
			}
			for k := 0; k < m.Count; k++ {
				inAck.Add(m.First + uint32(k))
			}
			res.OnAck(m.Ack, now)
		})
	}
	// A tick can be applied once it and every tick before it arrived.
	var r Link
	late := 0
	var applied time.Time
	var lateSum time.Duration
	base := oneWay.Round(step)
	if base < oneWay {
		base += step
	}
	for i := range bodies {
		if arrived[i].IsZero() {
			panic(errLink)
		}
		if arrived[i].After(applied) {
			applied = arrived[i]
		}
		extra := applied.Sub(firstSent[i]) - base
		if extra > 0 {
			late++
			lateSum += extra
		}
		r.Worst = max(r.Worst, extra)
	}
	secs := float64(len(bodies)) / benchTickRate
	r.Down = float64(downBytes) / secs
	r.Up = float64(upBytes) / secs
	r.LateFrac = float64(late) / float64(len(bodies))
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
