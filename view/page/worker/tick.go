//go:build js && wasm

package main

import (
	"syscall/js"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
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
			status += " error=" + tab.ErrorField(w.wrongGame(err))
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
		if p.Welcomed() {
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
			w.postBench(p)
		}
	}
}

// wrongGame returns err, or, when the server refused the seat naming
// another game than the page's (the room plays it), what
// tab.Config.WrongGame says; the first time, for a page that guessed its
// game, it asks boot.js to load the page of the room's game.
func (w *worker) wrongGame(err error) error {
	g := seat.OtherGame(err)
	if g == "" || g == w.cfg.Game {
		return err
	}
	reload, werr := w.cfg.WrongGame(g)
	if reload && !w.reloading {
		w.reloading = true
		w.postKind(tab.MsgGame, "room", w.cfg.Room, "game", g)
	}
	return werr
}

// postFrame posts the predicted world to draw (Session.ViewBetween's
// copies) if it changed since the last frame, in a transferred buffer.
func (w *worker) postFrame(p match) {
	fresh := p.sounds()
	st := p.Stats()
	if st.Predicted == w.lastPred && uint32(st.Rollbacks) == w.lastRb && !fresh && !p.Done() {
		return
	}
	w.lastPred, w.lastRb = st.Predicted, uint32(st.Rollbacks)
	f := &w.frame
	f.Me = int32(p.Me())
	f.Room, f.Ping, f.Predicted, f.Verified = p.Room(), float64(st.Ping)/float64(time.Millisecond), st.Predicted, st.Verified
	f.Rollbacks, f.Resyncs, f.Players = uint32(st.Rollbacks), uint32(st.Resyncs), uint32(st.Players)
	f.RolledBack, f.BytesIn, f.BytesOut = uint32(st.RolledBackTicks), uint32(st.BytesIn), uint32(st.BytesOut)
	f.Spectating, f.Delay = p.Spectating(), float64(p.Delay())/float64(time.Millisecond)
	f.Done, f.Stopped = p.Done(), ""
	if err := p.Err(); err != nil {
		f.Stopped = w.wrongGame(err).Error()
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

// match is the Worker's seat, whichever game it plays (a seat.Played
// of the game's Kind), with what the Worker does with its controls,
// effects and worlds.
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
	// Me returns this tab's player id, or -1.
	Me() int
	// Welcomed says whether the server welcomed the seat.
	Welcomed() bool
	// setControls sets the seat's input from the page's controls
	// (tab.MsgInput).
	setControls(c draw.Controls)
	// Script makes the session play the game's scripted bot input for
	// its player id (?input=scripted), as `rewind play --input
	// scripted` does, instead of the keys.
	Script()
	// sounds takes the sounds of the session's new effects for the next
	// frame and says whether there are any.
	sounds() bool
	// fill sets f's alpha, size and draw list (with the sounds taken)
	// from the predicted world.
	fill(f *tab.Frame)
}

// played is a seat of a game of input I in the Worker.
type played[I comparable] struct {
	*seat.Played[I]
	pending []draw.Sound
	list    draw.List
}

func (m *played[I]) setControls(c draw.Controls) { m.Control(time.Now(), c) }

func (m *played[I]) sounds() bool {
	m.pending = m.Sounds(m.pending)
	return len(m.pending) > 0
}

func (m *played[I]) fill(f *tab.Frame) {
	w, h := m.Size()
	now := time.Now()
	f.Width, f.Height = uint16(min(w, 4096)), uint16(min(h, 4096))
	f.At, f.Alpha = tab.Now(), m.Draw(now, int(f.Width), int(f.Height), &m.list)
	for _, s := range m.pending {
		m.list.Sound(s)
	}
	m.pending = m.pending[:0]
	f.List = m.list.AppendBinary(f.List[:0])
}
