//go:build js && wasm

package main

import (
	"fmt"
	"math"

	"github.com/rewindnet/rewind/view/tab"
)

// shipsScreen draws the frames of a ships match (a page whose game is
// ships: data-game or ?game=ships) on the page's canvas, as the window
// draws them (package view's Ships): the arena's walls, the shots, the
// ships between their last two places with their heading, id and health
// bar (this tab's ringed in white, a hit's flash while it lasts, a
// fading ring while a dead ship waits), the scores, the HUD and (G) the
// net graph. A frame's hits play the sound, once each.
type shipsScreen struct {
	*screen // the canvas, its fitting and text; its grid unused
	hitsAt  float64
}

// newShipsScreen adds the page's canvas for the ships arena.
func newShipsScreen(c *controls) *shipsScreen {
	return &shipsScreen{screen: newScreen(int(tab.ShipsSide)/scale, c)}
}

// input returns the ships controls now, packed (tab.ShipsInput.Pack).
func (s *shipsScreen) input() int { return s.controls.readShips().Pack() }

// draw draws frame f at alpha, or, before the first frame, the waiting
// text.
func (s *shipsScreen) draw(f *tab.Frame, alpha float64, waiting string) {
	s.fit()
	ctx := s.ctx
	ctx.Set("fillStyle", "rgb(8,8,12)")
	ctx.Call("fillRect", 0, 0, s.w, s.h)
	ctx.Set("font", "12px monospace")
	ctx.Set("textBaseline", "top")
	if f == nil {
		s.text(waiting, 8, 8, "#fff")
		return
	}
	s.graph.Add(tab.Now(), f.Ping, uint64(f.RolledBack), uint64(f.BytesIn), uint64(f.BytesOut))
	if f.At != s.hitsAt {
		s.hitsAt = f.At
		for range f.Arena.Hits {
			s.controls.blip()
		}
	}
	ctx.Set("strokeStyle", "rgb(90,90,110)")
	ctx.Set("lineWidth", 2)
	ctx.Call("strokeRect", 1, hudHeight+1, tab.ShipsSide-2, tab.ShipsSide-2)
	for _, sh := range f.Arena.Shots {
		wx, wy := sh.At(alpha)
		x, y := tab.ShipsPixel(wx, wy, hudHeight)
		s.disc(x, y, 2, rgba(tab.PlayerRGB(sh.Owner), 1))
	}
	mine := "-"
	for i := range f.Arena.Ships {
		sh := &f.Arena.Ships[i]
		own := int32(sh.Player) == f.Me
		if own {
			mine = fmt.Sprintf("health %d score %d", sh.Health, sh.Score)
		}
		s.drawShip(sh, alpha, own)
	}
	line1, line2 := hudLines(f, mine)
	s.text(line1, 4, 4, "#fff")
	s.text(line2, 4, 20, "#fff")
	for i, sh := range f.Arena.Ships {
		line := fmt.Sprintf("%d: %2d kills %2d deaths", sh.Player, sh.Score, sh.Deaths)
		s.text(line, 8, s.h-22-16*(len(f.Arena.Ships)-1-i), "#fff")
	}
	if f.Waiting != "" {
		s.drawWaiting(f.Waiting)
	}
	if s.controls.graphShown() {
		s.drawGraph()
	}
}

// drawShip draws ship sh at alpha between its two ticks.
func (s *shipsScreen) drawShip(sh *tab.ShipView, alpha float64, own bool) {
	ctx := s.ctx
	c := tab.PlayerRGB(sh.Player)
	wx, wy, ang := sh.At(alpha)
	x, y := tab.ShipsPixel(wx, wy, hudHeight)
	r := tab.ShipsRadius * tab.ShipsScale * 1.4
	if sh.Health == 0 {
		s.ring(x, y, r+float64(tab.ShipsRespawn-int(sh.Respawn))/4, 2, rgba(c, float64(2*min(int(sh.Respawn), 100))/255))
		return
	}
	s.disc(x, y, r, rgba(c, 1))
	ctx.Call("beginPath")
	ctx.Call("moveTo", x, y)
	ctx.Call("lineTo", x+math.Cos(ang)*r*1.8, y-math.Sin(ang)*r*1.8) // the canvas's Y is down
	ctx.Set("strokeStyle", rgba(c, 1))
	ctx.Set("lineWidth", 3)
	ctx.Call("stroke")
	if sh.Flash > 0 {
		s.ring(x, y, r+3, 2, fmt.Sprintf("rgba(255,255,255,%.2f)", float64(25*sh.Flash)/255))
	}
	if own {
		s.ring(x, y, r+6, 1.5, "#fff")
	}
	ctx.Set("fillStyle", "rgb(60,20,20)")
	ctx.Call("fillRect", x-r, y+r+4, 2*r, 3)
	ctx.Set("fillStyle", "rgb(80,220,100)")
	ctx.Call("fillRect", x-r, y+r+4, 2*r*float64(sh.Health)/tab.ShipsMaxHealth, 3)
	s.text(fmt.Sprint(sh.Player), int(x+r)+4, int(y-r)-12, "#fff")
}

// disc fills a circle.
func (s *shipsScreen) disc(x, y, r float64, fill string) {
	s.ctx.Call("beginPath")
	s.ctx.Call("arc", x, y, r, 0, 2*math.Pi)
	s.ctx.Set("fillStyle", fill)
	s.ctx.Call("fill")
}

// ring strokes a circle.
func (s *shipsScreen) ring(x, y, r, width float64, stroke string) {
	s.ctx.Call("beginPath")
	s.ctx.Call("arc", x, y, r, 0, 2*math.Pi)
	s.ctx.Set("strokeStyle", stroke)
	s.ctx.Set("lineWidth", width)
	s.ctx.Call("stroke")
}

// readShips returns the ships controls the keys and mouse give now, as
// the window reads them: left/right or A/D turn (left counterclockwise),
// up or W thrusts, space or the left mouse button fires.
func (c *controls) readShips() tab.ShipsInput {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.keys
	var in tab.ShipsInput
	if k["ArrowLeft"] || k["KeyA"] {
		in.Turn++
	}
	if k["ArrowRight"] || k["KeyD"] {
		in.Turn--
	}
	in.Thrust = k["ArrowUp"] || k["KeyW"]
	in.Fire = k["Space"] || c.mouse
	return in
}
