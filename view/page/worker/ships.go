//go:build js && wasm

package main

import (
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// shipsMatch is a ships seat in the Worker (a page whose game is ships).
type shipsMatch struct {
	*seat.Ships
	hits []uint16 // targets of the hits predicted since the last frame
	fx   []rewind.EffectEvent
}

func (m *shipsMatch) me() (rewind.PlayerID, bool) { return m.Session().Player() }

func (m *shipsMatch) setInput(n int) { m.SetInput(seat.ShipsInput(tab.UnpackShips(n))) }

func (m *shipsMatch) script() {
	s := m.Session()
	s.SetInputFunc(func(t uint32) ships.Input {
		id, _ := s.Player() // lock-free: the input function runs inside Update
		return ships.Bot(id, t)
	})
}

func (m *shipsMatch) effects() bool {
	m.fx = m.Session().Effects(m.fx[:0])
	for _, e := range m.fx {
		if e.Status == rewind.EffectPredicted && e.Effect.Kind == ships.EffectHit {
			m.hits = append(m.hits, uint16(e.Effect.Args[0]))
		}
	}
	return len(m.hits) > 0
}

func (m *shipsMatch) fill(f *tab.Frame) {
	f.Arena.Hits = append(f.Arena.Hits[:0], m.hits...)
	m.hits = m.hits[:0]
	f.Side, f.Cells, f.Avatars, f.Pours = 0, f.Cells[:0], f.Avatars[:0], f.Pours[:0]
	g := m.Game()
	m.Session().ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
		f.At, f.Alpha = tab.Now(), alpha
		seat.FillArena(&f.Arena, g, prev, cur)
		f.Players = g.State(cur).Ships
	})
}
