//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/internal/facehook"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
)

// worker is the Worker's state; its fields are the loop's alone (run).
type worker struct {
	wake, ticks chan struct{}
	timer       js.Func
	interval    js.Value
	period      time.Duration

	cfg      tab.Config
	failed   error // the join failed (or the page's settings are bad)
	joins    chan joinAnswer
	player   *seat.Player
	joined   chan *seat.Player
	runs     int
	verified bool
	stopped  bool

	predicting bool // the timeline's predicting mark was posted

	mu     sync.Mutex // conns, claims, claimN: the join's and migrations' goroutines too
	conns  map[int]*tab.Conn
	claims map[int]chan joinAnswer
	claimN int

	frame    tab.Frame
	lastPred uint32
	lastRb   uint32
	pours    []uint16
	fx       []rewind.EffectEvent
	enc      []byte
}

// joinAnswer is the page's answer to a join or a claim: the channel that
// opened, or why not.
type joinAnswer struct {
	id  int
	err error
}

func newWorker() *worker {
	return &worker{wake: make(chan struct{}, 1), ticks: make(chan struct{}, 1), joins: make(chan joinAnswer, 1),
		joined: make(chan *seat.Player, 1), conns: map[int]*tab.Conn{}, claims: map[int]chan joinAnswer{}}
}

// inbox takes the page's messages worker.js queued.
func (w *worker) inbox() {
	q := js.Global().Get("rewindInbox")
	for q.Length() > 0 {
		m := q.Call("shift")
		switch m.Get("t").String() {
		case tab.MsgStart:
			w.start(m)
		case tab.MsgJoined:
			w.joins <- joinAnswer{id: m.Get("id").Int()}
		case tab.MsgFailed:
			w.joins <- joinAnswer{err: errors.New(m.Get("err").String())}
		case tab.MsgLost:
			w.mu.Lock()
			c := w.conns[m.Get("id").Int()]
			w.mu.Unlock()
			if c != nil {
				c.HostLost()
			}
		case tab.MsgClaimed, tab.MsgClaimFailed:
			w.claimAnswer(m)
		case tab.MsgInput:
			if w.player != nil {
				in := tab.UnpackInput(m.Get("n").Int())
				w.player.SetInput(sand.Input{MoveX: in.MoveX, MoveY: in.MoveY, Pour: in.Pour, Material: sand.Material(in.Material)})
			}
		}
	}
	select {
	case p := <-w.joined:
		w.player = p
	default:
	}
}

// start takes the page's settings and starts the timer and the join.
func (w *worker) start(m js.Value) {
	data := map[string]string{}
	d := m.Get("data")
	keys := js.Global().Get("Object").Call("keys", d)
	for i := range keys.Length() {
		k := keys.Index(i).String()
		data[k] = d.Get(k).String()
	}
	w.cfg, w.failed = tab.ParseConfig(data, m.Get("search").String())
	w.startTimer(w.cfg.Rate)
	if w.failed != nil {
		return
	}
	go w.join()
}

// join starts the player once the page's join opened a channel.
func (w *worker) join() {
	c := w.cfg
	cfg := seat.Config{Room: c.Room, Side: c.Side, Until: c.Until, Spectate: c.Watch, Delay: c.Delay, Timeout: c.Timeout}
	p, err := seat.NewPlayer(cfg, func(g rewind.Game[sand.Input], opts rewind.Options) (*rewind.Session[sand.Input], error) {
		a := <-w.joins
		if a.err != nil {
			return nil, a.err
		}
		conn := w.conn(a.id)
		s, err := rewind.Connect(g, conn, opts)
		if err != nil {
			conn.Close()
			return nil, err
		}
		facehook.Own(s)
		facehook.SetMigrator(s, w.migrate)
		go func() { // the relay's notice that the host is lost
			<-conn.Lost()
			facehook.ServerLost(s)
		}()
		return s, nil
	})
	if err != nil {
		w.failed = err // read by the loop's next tick
		return
	}
	w.joined <- p
	w.poke()
}

// conn returns the Conn of channel id.
func (w *worker) conn(id int) *tab.Conn {
	c := tab.NewConn(id, w.wake, func(m js.Value) { w.post(m) })
	w.mu.Lock()
	w.conns[id] = c
	w.mu.Unlock()
	return c
}

// migrate is the session's facehook.Migrator: the page claims the room
// with the handover data's code and key (a tab never hosts) and hands
// over the channel to the next host.
func (w *worker) migrate(ctx context.Context, h facehook.Handoff) (facehook.Migrated[sand.Input], error) {
	answer := make(chan joinAnswer, 1)
	w.mu.Lock()
	w.claimN++
	n := w.claimN
	w.claims[n] = answer
	w.mu.Unlock()
	w.postKind(tab.MsgClaim, "n", n, "code", h.Handover.Code, "key", h.Handover.Key)
	select {
	case a := <-answer:
		if a.err != nil {
			return facehook.Migrated[sand.Input]{}, fmt.Errorf("claiming room %s: %w", h.Handover.Code, a.err)
		}
		c := w.conn(a.id)
		return facehook.Migrated[sand.Input]{Conn: c, Lost: c.Lost()}, nil
	case <-ctx.Done():
		return facehook.Migrated[sand.Input]{}, ctx.Err()
	}
}

// claimAnswer hands the page's answer to a claim to its migrate.
func (w *worker) claimAnswer(m js.Value) {
	n := m.Get("n").Int()
	w.mu.Lock()
	ch := w.claims[n]
	delete(w.claims, n)
	w.mu.Unlock()
	if ch == nil {
		return
	}
	if m.Get("t").String() == tab.MsgClaimed {
		ch <- joinAnswer{id: m.Get("id").Int()}
	} else {
		ch <- joinAnswer{err: errors.New(m.Get("err").String())}
	}
}
