// Package loadbot is a player that does not simulate: it speaks the
// match protocol over UDP (hello with a room code, world transfer acks,
// tick acks, pongs) and sends the same input every tick a few ticks
// ahead of the last tick it received, so that the server does all of a
// real player's work for it while the bot costs almost nothing. Bench
// fleet and bench flood run many of them in child processes (Run).
package loadbot

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/inputs"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// bot is one load bot (see the package doc).
type bot struct {
	server   string
	local    string
	redial   atomic.Bool // a goroutine is dialing again (the session ended)
	conn     *udp.Client
	hello    []byte
	tag      uint8
	welcomed bool
	gone     bool
	got      reliable.RecvWindow // server ticks held
	last     uint32              // the highest server tick received
	next     uint32              // the first input tick the server lacks
	chunks   reliable.RecvWindow // world chunks held, of transfer xfer
	xfer     uint32
	helloAt  time.Time
	buf, out []byte
}

// proto is what every load bot of a process shares: the game's
// fingerprint and the coded constant input in runs of 1..8.
type proto struct {
	fp       uint64
	payloads [9][]byte
}

// lead is how many ticks ahead of the last received tick a load
// bot sends its input (the real client's lead on loopback is about that).
const lead = 3

func newProto() (*proto, error) {
	it, err := inputs.NewType[testgame.Input]()
	if err != nil {
		return nil, err
	}
	_, w, err := game.NewWorld[testgame.Input](&testgame.Game{}, nil)
	if err != nil {
		return nil, err
	}
	g := &testgame.Game{}
	p := &proto{fp: game.Fingerprint(it.Fingerprint(), w.Layout().Hash(), game.RateOf(g))}
	in := make([]byte, it.Size())
	for n := 1; n < len(p.payloads); n++ {
		ins := make([][]byte, n)
		for i := range ins {
			ins[i] = in
		}
		p.payloads[n] = it.AppendInputs(nil, ins)
	}
	return p, nil
}

// botConfig is a bot's session from local: drained (no reader
// goroutine: step reads the socket once a tick, so that the server's
// datagrams wake no thread of the bots' process), its queue large enough
// for a tick's datagrams and a world transfer's window.
func botConfig(local string) udp.Config {
	return udp.Config{LocalAddr: local, QueueLen: 64, HandshakeTimeout: 20 * time.Second, Drained: true}
}

// dial opens the bot's UDP session from local to server.
func dial(ctx context.Context, p *proto, server, local, room string) (*bot, error) {
	conn, err := udp.DialContext(ctx, server, botConfig(local))
	if err != nil {
		return nil, err
	}
	h := codec.Hello{Game: p.fp}
	if !h.SetRoom(room) {
		conn.Close()
		return nil, fmt.Errorf("loadbot: room code %q: want 6 to 12 printable characters", room)
	}
	return &bot{server: server, local: local, conn: conn, hello: h.Append(nil), buf: make([]byte, transport.MaxDatagram+1), out: make([]byte, 0, transport.MaxDatagram)}, nil
}

// again dials a new session for a bot whose session ended and starts it
// over (a hello with its room); called with the process's lock held, it
// dials in a goroutine and swaps the session in under that lock.
func (b *bot) again(ctx context.Context, mu *sync.Mutex, wg *sync.WaitGroup) {
	if !b.redial.CompareAndSwap(false, true) {
		return
	}
	old := b.conn
	wg.Go(func() {
		old.Close()
		conn, err := udp.DialContext(ctx, b.server, botConfig(b.local))
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			b.conn = conn
			b.welcomed, b.gone, b.helloAt = false, false, time.Time{}
			b.redial.Store(false)
		}
	})
}

// step reads what arrived and sends what is due at now (called at the
// tick rate).
func (b *bot) step(p *proto, now time.Time) {
	if b.gone {
		return
	}
	b.conn.Drain()
	for {
		n, _, err := b.conn.Recv(b.buf)
		if err != nil {
			if err != transport.ErrWouldBlock {
				b.gone = true
				return
			}
			break
		}
		b.take(b.buf[:n])
	}
	if !b.welcomed {
		if now.Sub(b.helloAt) >= 250*time.Millisecond {
			b.helloAt = now
			b.send(b.hello)
		}
		return
	}
	target := b.last + lead
	first := b.next
	if int32(target-first) < 0 {
		first = target
	}
	count := min(int(target-first)+1, len(p.payloads)-1)
	m := codec.ClientInputs{Tag: b.tag, First: first, Ack: b.got.Ack(), Count: count, Payload: p.payloads[count]}
	b.send(m.Append(b.out[:0]))
}

// take handles one datagram from the server.
func (b *bot) take(d []byte) {
	typ, _, err := codec.Peek(d)
	if err != nil {
		return
	}
	switch typ {
	case codec.TypeWelcome:
		w, _, err := codec.ParseWelcome(d)
		if err != nil || b.welcomed {
			return
		}
		b.welcomed, b.tag = true, w.Tag
		b.got.Reset(w.Tick + 1)
		b.last, b.next = w.Tick, w.Tick+1
	case codec.TypeServerTicks:
		m, _, err := codec.ParseServerTicks(d, b.last)
		if err != nil {
			return
		}
		for _, t := range m.Ticks {
			b.got.Add(t.Tick)
			if int32(t.Tick-b.last) > 0 {
				b.last = t.Tick
			}
		}
		if int32(m.Ack.Next-b.next) > 0 {
			b.next = m.Ack.Next
		}
	case codec.TypeWorldChunk:
		c, _, err := codec.ParseWorldChunk(d)
		if err != nil {
			return
		}
		if c.Transfer != b.xfer {
			b.xfer = c.Transfer
			b.chunks.Reset(0)
		}
		b.chunks.Add(c.Index)
		a := codec.WorldAck{Tag: b.tag, Transfer: c.Transfer, Ack: b.chunks.Ack()}
		b.send(a.Append(b.out[:0]))
	case codec.TypePing:
		pi, _, err := codec.ParsePing(d)
		if err != nil {
			return
		}
		po := codec.Pong{Tag: pi.Tag, ID: pi.ID, Time: pi.Time}
		b.send(po.Append(b.out[:0]))
	case codec.TypeBye:
		b.gone = true
	}
}

func (b *bot) send(p []byte) {
	if err := b.conn.Send(b.conn.RemoteAddr(), p); err != nil {
		b.gone = true
	}
}

// Config is a process's load bots.
type Config struct {
	// Server is the host's UDP address; Local the bots' IP address.
	Server, Local string
	// Rooms holds a room code per bot (a code as many times as it has bots).
	Rooms []string
	// Rate is the tick rate, in Hz.
	Rate int
}

// Run opens a load bot per room code of cfg.Rooms from cfg.Local to
// cfg.Server, and drives them all at cfg.Rate until ctx ends. Each bot
// plays from the tick after its handshake (a session whose match hello
// waits is reaped by the server as unproven), and dials again when its
// session ends.
func Run(ctx context.Context, cfg Config) error {
	server, local, rooms, rate := cfg.Server, cfg.Local, cfg.Rooms, cfg.Rate
	p, err := newProto()
	if err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		bots []*bot
		wg   sync.WaitGroup
	)
	errs := make(chan error, len(rooms))
	sem := make(chan struct{}, 8) // handshakes at once
	for i, room := range rooms {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			b, err := dial(ctx, p, server, local+":0", room)
			if err != nil {
				errs <- fmt.Errorf("bot %d (room %s): %w", i, room, err)
				return
			}
			mu.Lock()
			bots = append(bots, b)
			mu.Unlock()
		})
	}
	defer func() {
		wg.Wait()
		for _, b := range bots {
			b.conn.Close()
		}
	}()
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			return err
		case now := <-t.C:
			mu.Lock()
			for _, b := range bots {
				if b.gone {
					b.again(ctx, &mu, &wg)
					continue
				}
				b.step(p, now)
			}
			mu.Unlock()
		}
	}
}
