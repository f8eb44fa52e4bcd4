//go:build js && wasm

package main

import (
	"math"
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// tick is the tick handler: it runs every tick that is due, then posts
// the page the #status line and, when the predicted world changed, the
// frame to draw. It runs from the Worker's timer, hidden tab or not.
func (w *worker) tick() {
	w.runs++
	room := w.cfg.Room
	p := w.player
	var status string
	switch {
	case p != nil:
		p.Tick(time.Now())
		status = p.Status()
		if err := p.Err(); err != nil {
			status += " error=" + tab.ErrorField(err)
		}
	case w.failed != nil:
		status = seat.WaitingStatus(room, "failed", w.moved) + " error=" + tab.ErrorField(w.failed)
	default:
		status = seat.WaitingStatus(room, "joining", w.moved)
	}
	m := js.Global().Get("Object").New()
	m.Set("t", tab.MsgTick)
	m.Set("status", status)
	m.Set("runs", w.runs)
	if p != nil && !w.welcomed {
		if _, ok := p.me(); ok {
			w.welcomed = true
			w.postKind(tab.MsgReady, "at", tab.Now(), "stage", "welcomed")
		}
	}
	if p != nil && !w.predicting && p.Stats().Predicted > 0 {
		w.predicting = true
		m.Set("predicting", tab.Now())
	}
	if p != nil && !w.verified && p.Stats().Verified > 0 {
		w.verified = true
		m.Set("verified", tab.Now())
	}
	w.post(m)
	if p != nil {
		w.postFrame(p)
	}
	if w.failed != nil || (p != nil && p.Done() && !p.Serving()) {
		if p != nil {
			_ = p.Close()
		}
		js.Global().Call("clearInterval", w.interval)
		w.stopped = true
		if w.cfg.Bench {
			w.postBench()
		}
	}
}

// postFrame posts the predicted world to draw (Session.ViewBetween's
// copies) if it changed since the last frame, in a transferred buffer.
func (w *worker) postFrame(p match) {
	fresh := p.effects()
	st := p.Stats()
	if st.Predicted == w.lastPred && uint32(st.Rollbacks) == w.lastRb && !fresh && !p.Done() {
		return
	}
	w.lastPred, w.lastRb = st.Predicted, uint32(st.Rollbacks)
	f := &w.frame
	f.Me = -1
	if id, ok := p.me(); ok {
		f.Me = int32(id)
	}
	f.Room, f.Ping, f.Predicted, f.Verified = p.Room(), float64(st.Ping)/float64(time.Millisecond), st.Predicted, st.Verified
	f.Rollbacks, f.Resyncs = uint32(st.Rollbacks), uint32(st.Resyncs)
	f.RolledBack, f.BytesIn, f.BytesOut = uint32(st.RolledBackTicks), uint32(st.BytesIn), uint32(st.BytesOut)
	f.Spectating, f.Delay = p.Spectating(), float64(p.Delay())/float64(time.Millisecond)
	f.Done, f.Stopped = p.Done(), ""
	if err := p.Err(); err != nil {
		f.Stopped = err.Error()
	}
	f.Waiting = p.WaitingFor()
	f.Period = float64(w.period) / float64(time.Millisecond)
	p.fill(f)
	w.enc = f.AppendBinary(w.enc[:0])
	u := js.Global().Get("Uint8Array").New(len(w.enc))
	js.CopyBytesToJS(u, w.enc)
	m := js.Global().Get("Object").New()
	m.Set("t", tab.MsgFrame)
	m.Set("buf", u.Get("buffer"))
	w.post(m, u.Get("buffer"))
}

// match is the Worker's seat, whichever game it plays: seat.Player
// (sand) or seat.Ships, with what the Worker does with each game's
// controls, effects and worlds.
type match interface {
	Tick(now time.Time)
	Status() string
	Err() error
	Done() bool
	Serving() bool
	Close() error
	Stats() rewind.Stats
	Room() string
	Spectating() bool
	Delay() time.Duration
	Hosting() bool
	Migrations() int
	WaitingFor() string
	// me returns this tab's player id, once the server welcomed it.
	me() (rewind.PlayerID, bool)
	// setInput sets the page's packed controls (tab.MsgInput's n).
	setInput(n int)
	// script makes the session play the game's scripted bot input for
	// its player id (?input=scripted), as `rewind play --input
	// scripted` does, instead of the keys.
	script()
	// effects takes the session's new effects for the next frame and
	// says whether any of them asks for one.
	effects() bool
	// fill sets f's alpha, world and player count from the predicted
	// world and hands it the effects taken.
	fill(f *tab.Frame)
}

// sandMatch is a sand seat in the Worker.
type sandMatch struct {
	*seat.Player
	pours []uint16
	fx    []rewind.EffectEvent
}

func (m *sandMatch) me() (rewind.PlayerID, bool) { return m.Session().Player() }

func (m *sandMatch) setInput(n int) {
	in := tab.UnpackInput(n)
	m.SetInput(sand.Input{MoveX: in.MoveX, MoveY: in.MoveY, Pour: in.Pour, Material: sand.Material(in.Material)})
}

func (m *sandMatch) script() {
	s := m.Session()
	s.SetInputFunc(func(t uint32) sand.Input {
		id, _ := s.Player() // lock-free: the input function runs inside Update
		return sand.Bot(id, t)
	})
}

func (m *sandMatch) effects() bool {
	m.fx = m.Session().Effects(m.fx[:0])
	for _, e := range m.fx {
		if e.Status == rewind.EffectPredicted && e.Effect.Kind == sand.EffectPour {
			m.pours = append(m.pours, uint16(e.Effect.Args[0]))
		}
	}
	return len(m.pours) > 0
}

func (m *sandMatch) fill(f *tab.Frame) {
	f.Pours = append(f.Pours[:0], m.pours...)
	m.pours = m.pours[:0]
	g := m.Game()
	if hg, ok := m.Session().Game().(*sand.Game); ok {
		g = hg // the host's settings' game (seat.Config.HostSettings)
	}
	m.Session().ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
		f.At, f.Alpha = tab.Now(), alpha
		cells := g.Cells(cur)
		f.Side = uint16(sideOf(len(cells)))
		f.Cells = f.Cells[:0]
		for _, c := range cells {
			f.Cells = append(f.Cells, byte(c))
		}
		before := g.Avatars(prev)
		f.Avatars = f.Avatars[:0]
		for _, a := range g.Avatars(cur) {
			t := tab.Avatar{Player: a.Player, X: a.X, Y: a.Y, PX: a.X, PY: a.Y}
			for _, b := range before {
				if b.Player == a.Player {
					t.PX, t.PY = b.X, b.Y
					break
				}
			}
			f.Avatars = append(f.Avatars, t)
		}
		f.Players = g.State(cur).Players
	})
}

// sideOf returns the side of a square grid of n cells.
func sideOf(n int) int {
	s := int(math.Sqrt(float64(n)))
	for s*s > n {
		s--
	}
	for (s+1)*(s+1) <= n {
		s++
	}
	return s
}
