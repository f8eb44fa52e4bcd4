//go:build js && wasm

package main

import (
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
		status = seat.WaitingStatus(room, "failed") + " error=" + tab.ErrorField(w.failed)
	default:
		status = seat.WaitingStatus(room, "joining")
	}
	m := js.Global().Get("Object").New()
	m.Set("t", tab.MsgTick)
	m.Set("status", status)
	m.Set("runs", w.runs)
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
func (w *worker) postFrame(p *seat.Player) {
	s := p.Session()
	w.fx = s.Effects(w.fx[:0])
	for _, e := range w.fx {
		if e.Status == rewind.EffectPredicted && e.Effect.Kind == sand.EffectPour {
			w.pours = append(w.pours, uint16(e.Effect.Args[0]))
		}
	}
	st := p.Stats()
	if st.Predicted == w.lastPred && uint32(st.Rollbacks) == w.lastRb && len(w.pours) == 0 && !p.Done() {
		return
	}
	w.lastPred, w.lastRb = st.Predicted, uint32(st.Rollbacks)
	f := &w.frame
	f.Me = -1
	if id, ok := s.Player(); ok {
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
	f.Pours = append(f.Pours[:0], w.pours...)
	w.pours = w.pours[:0]
	f.Period = float64(w.period) / float64(time.Millisecond)
	g := p.Game()
	s.ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
		f.At, f.Alpha = tab.Now(), alpha
		cells := g.Cells(cur)
		f.Side = uint16(w.side(len(cells)))
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
	w.enc = f.AppendBinary(w.enc[:0])
	u := js.Global().Get("Uint8Array").New(len(w.enc))
	js.CopyBytesToJS(u, w.enc)
	m := js.Global().Get("Object").New()
	m.Set("t", tab.MsgFrame)
	m.Set("buf", u.Get("buffer"))
	w.post(m, u.Get("buffer"))
}

// side returns the grid's side for n cells.
func (w *worker) side(n int) int {
	s := w.cfg.Side
	if s <= 0 {
		s = 256
	}
	for s*s > n && s > 0 {
		s--
	}
	return s
}
