package webdoom

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/tools/webdoomclient"
	"github.com/rewindnet/rewind/relay/webdoom/wire"
	"github.com/zeebo/xxh3"
)

// wdPlayer is one game (or spectator) socket whose bundles a reader
// goroutine collects.
type wdPlayer struct {
	c       *webdoomclient.Conn
	mu      sync.Mutex
	bundles []wire.Bundle
	arrived []time.Time
	ended   chan error
}

func wdPlay(t *testing.T, base, path string) *wdPlayer {
	p := &wdPlayer{c: wdDial(t, base, path), ended: make(chan error, 1)}
	go func() {
		for {
			b, err := p.c.ReadBundle(context.Background())
			if err != nil {
				p.ended <- err
				return
			}
			p.mu.Lock()
			p.bundles = append(p.bundles, b)
			p.arrived = append(p.arrived, time.Now())
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *wdPlayer) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.bundles)
}

func (p *wdPlayer) snapshot() []wire.Bundle {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wire.Bundle(nil), p.bundles...)
}

// waitCount waits until p holds n bundles. It fails at once, saying
// why, if p's socket ended first.
func (p *wdPlayer) waitCount(t *testing.T, n int) []wire.Bundle {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.count() < n {
		select {
		case err := <-p.ended:
			p.ended <- err // for whoever waits on it next
			if p.count() < n {
				t.Fatalf("waited for %d bundles, have %d: the socket ended (%v)", n, p.count(), err)
			}
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d bundles, have %d", n, p.count())
		}
		time.Sleep(time.Millisecond)
	}
	return p.snapshot()
}

func (p *wdPlayer) send(t *testing.T, tic uint32, fwd int8) {
	t.Helper()
	if err := p.c.SendCmd(wdCtx(t, time.Second), tic, wire.NewTicCmd(fwd, int8(tic), int16(tic)*3, 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
}

// wdToySim is the determinism check: a small game every client runs on the
// sealed bundles. Each in-game slot moves by its cmd; a slot whose in-game
// bit turns on spawns at a fixed spot. The hash after every tic must be
// the same on every machine that ran the same tics.
type wdToySim struct {
	x, y, a [4]int32
	in      [4]bool
	tic     uint32
}

func (s *wdToySim) step(b wire.Bundle) uint64 {
	if b.Tic != s.tic {
		panic(fmt.Sprintf("toy sim: bundle %d at tic %d", b.Tic, s.tic))
	}
	for i := 0; i < 4; i++ {
		on := b.InGame&(1<<i) != 0
		if on && !s.in[i] {
			s.x[i], s.y[i], s.a[i] = int32(i)*100, 0, 0
		}
		s.in[i] = on
		if on {
			c := b.Cmds[i]
			s.a[i] += int32(c.AngleTurn())
			s.x[i] += int32(c.ForwardMove()) * (s.a[i]%7 + 1)
			s.y[i] += int32(c.SideMove()) - s.x[i]%5
		}
	}
	s.tic++
	var buf [4 * 13]byte
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint32(buf[i*13:], uint32(s.x[i]))
		binary.LittleEndian.PutUint32(buf[i*13+4:], uint32(s.y[i]))
		binary.LittleEndian.PutUint32(buf[i*13+8:], uint32(s.a[i]))
		if s.in[i] {
			buf[i*13+12] = 1
		}
	}
	return xxh3.Hash(buf[:]) ^ uint64(s.tic)
}

func wdHashes(bs []wire.Bundle) []uint64 {
	var s wdToySim
	out := make([]uint64, len(bs))
	for i, b := range bs {
		out[i] = s.step(b)
	}
	return out
}

// wdCmdsHeld waits until the core holds a cmd of tic for every slot.
func wdCmdsHeld(t *testing.T, srv *Server, tic uint32, slots ...int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		held := true
		srv.query(func(c *Core) {
			for _, s := range slots {
				if _, ok := c.session.players[s].cmd(tic); !ok {
					held = false
				}
			}
		})
		if held {
			return
		}
	}
	t.Fatalf("the cmds of tic %d for slots %v never reached the core", tic, slots)
}

// wdSettled waits until p has every bundle the server sealed and returns
// the server's next tic.
func wdSettled(t *testing.T, srv *Server, p *wdPlayer) uint32 {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if tic := srv.Status().Tic; int(tic) == p.count() {
			return tic
		}
	}
	t.Fatal("bundles never settled")
	return 0
}

func (p *wdPlayer) arrivedAt(i int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrived[i]
}

// wdKeepAlive sends, every 50 ms until the returned stop, a cmd of tic 0
// (sealed long ago: the server takes it as a sign of life and drops it) on
// each of ps's sockets, as WebDoom's clients, which send a cmd every tic,
// would. The test leaves its players idle while it waits for something
// else, and a loaded machine can stretch that past Drop. A drop-in's
// first cmd schedules it: start its keep-alive after. stop may be called
// more than once.
func wdKeepAlive(ps ...*wdPlayer) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			for _, p := range ps {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				p.c.SendCmd(ctx, 0, wire.NewTicCmd(0, 0, 0, 0, 0, 0)) // a closed socket's error is no matter
				cancel()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
