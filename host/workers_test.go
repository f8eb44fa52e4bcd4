package host

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestSchedulerTicksOnTime: in made-up time, 24 started rooms whose
// ticks fall at different times run on 2 workers for 2 s, each update of
// a due tick exactly at its deadline (time stands still while goroutines
// run, so a worker that missed a wake-up, or slept past a deadline,
// would count a late tick), every room ticking all 2 s. With one worker
// too, with one room, and with one room and one whose match has not
// started (polled every 250 ms: the worker waiting for it must not keep
// the ticking room waiting).
func TestSchedulerTicksOnTime(t *testing.T) {
	for _, c := range []struct{ rooms, idle, workers int }{{24, 0, 2}, {24, 0, 1}, {1, 0, 2}, {1, 1, 2}} {
		t.Run(fmt.Sprintf("rooms=%d,idle=%d,workers=%d", c.rooms, c.idle, c.workers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { schedulerOnTime(t, c.rooms, c.idle, c.workers, nil) })
		})
	}
}

// TestSchedulerWakesFinely: in made-up time, as TestSchedulerTicksOnTime
// (24 rooms, 2 workers), with the host waking finely: the leader's Go
// timer fires a millisecond early and fineSleep sleeps the rest, so
// that every tick still runs exactly at its deadline; fineSleep is
// asked for no more than fineLead each time.
func TestSchedulerWakesFinely(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu     sync.Mutex
			sleeps []time.Duration
		)
		schedulerOnTime(t, 24, 0, 2, func(d time.Duration) {
			mu.Lock()
			sleeps = append(sleeps, d)
			mu.Unlock()
			time.Sleep(d)
		})
		if len(sleeps) == 0 {
			t.Fatal("fineSleep never called")
		}
		for _, d := range sleeps {
			if d <= 0 || d > fineLead {
				t.Fatalf("fineSleep(%v); want (0, %v]", d, fineLead)
			}
		}
		t.Logf("%d fine sleeps", len(sleeps))
	})
}

// schedulerOnTime runs TestSchedulerTicksOnTime's case, the host waking
// finely with fine if it is not nil.
func schedulerOnTime(t *testing.T, rooms, idle, workers int, fine func(time.Duration)) {
	conn := &sentConn{nullConn: nullConn{ready: make(chan struct{})}}
	h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{Workers: workers, MaxMatches: rooms + idle})
	if err != nil {
		t.Fatal(err)
	}
	h.fineSleep = fine
	for range idle {
		if _, err := h.Open(""); err != nil {
			t.Fatal(err)
		}
	}
	start := make([]uint32, rooms)
	startAt := make([]time.Time, rooms)
	for i := range rooms {
		code, err := h.Open("")
		if err != nil {
			t.Fatal(err)
		}
		r := h.rooms[code]
		startRoom(t, h, conn, r, transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i)))
		start[i], startAt[i] = r.m.Server.Tick(), time.Now()
		time.Sleep(h.period / 7) // the rooms' ticks fall apart
	}
	const run = 2 * time.Second
	ctx, cancel := context.WithTimeout(t.Context(), run)
	defer cancel()
	if err := h.Run(ctx); err != nil {
		t.Fatal(err)
	}
	lag := h.TickLag()
	if n := lag.N(); n == 0 || lag.Counts[0] != n {
		t.Errorf("%d of %d tick updates late (p99 %v, max %v); want none", n-lag.Counts[0], n, lag.Quantile(0.99), lag.Quantile(1))
	}
	if st := h.TickStartLag(); st.N() != lag.N() || st.Counts[0] != st.N() {
		t.Errorf("TickStartLag: %d of %d late, TickLag counted %d; want every one on time, as many", st.N()-st.Counts[0], st.N(), lag.N())
	}
	for i, r := range h.order[idle:] {
		d := time.Since(startAt[i])
		want := uint32(d / h.period)
		if got := r.m.Server.Tick() - start[i]; got+1 < want || got > want+1 {
			t.Errorf("room %d ticked %d times in %v; want %d", i, got, d, want)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSchedulerAnswersAtOnce: in made-up time, while 24 started rooms
// tick on 2 workers, a ping to one of them at any moment is answered at
// that moment: the scheduler wakes an idle worker for a room a datagram
// made due, whatever the others wait for.
func TestSchedulerAnswersAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rooms = 24
		conn := &pipeConn{sentConn: sentConn{nullConn: nullConn{ready: make(chan struct{}, 1)}}}
		h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{Workers: 2, MaxMatches: rooms})
		if err != nil {
			t.Fatal(err)
		}
		peers := make([]transport.Addr, rooms)
		tags := make([]uint8, rooms)
		for i := range rooms {
			code, err := h.Open("")
			if err != nil {
				t.Fatal(err)
			}
			peers[i] = transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i))
			tags[i] = startRoom(t, h, &conn.sentConn, h.rooms[code], peers[i]).Tag
			time.Sleep(h.period / 7)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- h.Run(ctx) }()
		for i := range 60 {
			time.Sleep(h.period / 13)
			k := i * 7 % rooms
			conn.deliver(peers[k], (&codec.Ping{Tag: tags[k], ID: uint32(i + 1)}).Append(nil))
			synctest.Wait() // nothing runs that time would have to pass for
			if !conn.sentTo(peers[k], codec.TypePong) {
				t.Fatalf("ping %d to room %d: no pong at once", i+1, k)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		h.Close()
	})
}

// pipeConn is a sentConn that also delivers datagrams (deliver), and
// keeps where each sent datagram went.
type pipeConn struct {
	sentConn
	mu    sync.Mutex
	in    []pipeDatagram
	sends []pipeDatagram
}

type pipeDatagram struct {
	addr transport.Addr
	p    []byte
}

func (c *pipeConn) deliver(from transport.Addr, p []byte) {
	c.mu.Lock()
	c.in = append(c.in, pipeDatagram{from, p})
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *pipeConn) Recv(p []byte) (int, transport.Addr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.in) == 0 {
		return 0, "", transport.ErrWouldBlock
	}
	d := c.in[0]
	c.in = c.in[1:]
	return copy(p, d.p), d.addr, nil
}

func (c *pipeConn) Send(to transport.Addr, p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sends = append(c.sends, pipeDatagram{to, append([]byte(nil), p...)})
	c.sent = append(c.sent, append([]byte(nil), p...)) // what startRoom reads
	return nil
}

// sentTo reports whether a datagram of type typ went to addr since the
// last call, and forgets what was sent.
func (c *pipeConn) sentTo(addr transport.Addr, typ codec.Type) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	found := false
	for _, d := range c.sends {
		if got, _, _ := codec.Peek(d.p); d.addr == addr && got == typ {
			found = true
		}
	}
	c.sends = c.sends[:0]
	return found
}

// TestTickPhases: rooms whose matches start at 24 different moments tick
// at 4 instants a tick (the even ones of TickPhases' default 8: they
// hold fewer than phaseFill each), each at most a tick before it would
// have; with TickPhases -1 each at its own.
func TestTickPhases(t *testing.T) {
	for _, c := range []struct{ phases, want int }{{0, 4}, {1, 1}, {-1, 24}} {
		t.Run(fmt.Sprintf("phases=%d", c.phases), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				conn := &sentConn{nullConn: nullConn{ready: make(chan struct{})}}
				h, err := NewMulti[testgame.Input](&testgame.Game{}, conn, Options{MaxMatches: 24, TickPhases: c.phases})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close()
				seen := map[time.Duration]bool{}
				for i := range 24 {
					code, err := h.Open("")
					if err != nil {
						t.Fatal(err)
					}
					r := h.rooms[code]
					startRoom(t, h, conn, r, transport.Addr(fmt.Sprintf("udp:127.0.0.1:%d#1", 4000+i)))
					// Tick 1 is due within a tick of the start, no later than
					// it would have been without phases.
					next, now := r.m.Server.NextDeadline(), time.Now()
					if !next.After(now) || next.After(now.Add(h.period)) {
						t.Fatalf("room %d: tick 1 due %v after its start; want within (0, %v]", i, next.Sub(now), h.period)
					}
					seen[time.Duration(next.UnixNano())%h.period] = true
					time.Sleep(h.period/7 + time.Duration(i)*time.Millisecond/3)
				}
				if len(seen) != c.want {
					t.Errorf("%d distinct tick phases; want %d", len(seen), c.want)
				}
			})
		})
	}
}
