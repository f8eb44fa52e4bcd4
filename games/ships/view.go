package ships

import (
	"fmt"
	"math"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
)

// Size returns the canvas the view would like: the arena's 1,200 units
// at half a pixel each.
func (g *Game) Size() (w, h int) { return 600, 600 }

// arena is the view's mapping of the arena onto the canvas.
type arena struct {
	k, ox, oy float64 // pixels a unit; the arena's top left
}

func arenaOf(v rewind.View) arena {
	side := float64(min(v.Width, v.Height))
	half := HalfArena.Float()
	return arena{k: side / (2 * half), ox: (float64(v.Width) - side) / 2, oy: (float64(v.Height) - side) / 2}
}

// px returns where the arena's point (x, y) (units, Y up) is on the
// canvas (Y down).
func (a arena) px(x, y float64) (int, int) {
	half := HalfArena.Float()
	return int(math.Round(a.ox + (x+half)*a.k)), int(math.Round(a.oy + (half-y)*a.k))
}

// Draw draws what v shows: the arena's wall, the shots and the ships
// between their last two places (a disc in its player's colour with its
// nose along its heading, its id and health bar; the viewer's on a white
// disc; a white disc behind while a hit's flash lasts; a small disc
// where a dead ship waits), and the scores at the bottom left.
func (g *Game) Draw(v rewind.View, l *draw.List) {
	a := arenaOf(v)
	l.Clear(draw.Background)
	x0, y0 := a.px(-HalfArena.Float(), HalfArena.Float())
	x1, y1 := a.px(HalfArena.Float(), -HalfArena.Float())
	l.Rect(x0, y0, x1-x0, y1-y0, draw.RGB(90, 90, 110))
	before := g.Shots(v.Prev)
	for _, s := range g.Shots(v.Cur) {
		x, y := s.Pos.X.Float(), s.Pos.Y.Float()
		for _, b := range before {
			if b.Owner == s.Owner && b.Fired == s.Fired {
				x, y = v.Lerp(b.Pos.X.Float(), x), v.Lerp(b.Pos.Y.Float(), y)
				break
			}
		}
		px, py := a.px(x, y)
		l.Circle(px, py, max(2, int(a.k*ShotRadius.Float()*1.5)), draw.PlayerColor(int(s.Owner)))
	}
	ships := g.Ships(v.Cur)
	prev := g.Ships(v.Prev)
	for i := range ships {
		g.drawShip(l, v, a, &ships[i], prev)
	}
	for i, s := range ships {
		line := fmt.Sprintf("%d: %2d kills %2d deaths  health %d", s.Player, s.Score, s.Deaths, s.Health)
		l.Text(x0+8, y1-8-draw.LineHeight*(len(ships)-1-i), line, draw.PlayerColor(int(s.Player)))
	}
}

// drawShip draws ship s, between its place in prev (if it was alive
// there) and its place now.
func (g *Game) drawShip(l *draw.List, v rewind.View, a arena, s *Ship, prev []Ship) {
	c := draw.PlayerColor(int(s.Player))
	x, y, ang := s.Pos.X.Float(), s.Pos.Y.Float(), s.Angle.Float()
	for _, b := range prev {
		if b.Player == s.Player && b.Health > 0 && s.Health > 0 {
			d := ang - b.Angle.Float() // the short way across ±π
			if d > math.Pi {
				d -= 2 * math.Pi
			} else if d < -math.Pi {
				d += 2 * math.Pi
			}
			x, y, ang = v.Lerp(b.Pos.X.Float(), x), v.Lerp(b.Pos.Y.Float(), y), b.Angle.Float()+v.Alpha*d
			break
		}
	}
	px, py := a.px(x, y)
	r := max(3, int(math.Round(ShipRadius.Float()*a.k*1.4)))
	if s.Health == 0 {
		l.Circle(px, py, max(1, r*int(s.Respawn)/RespawnTicks), c)
		return
	}
	if int(s.Player) == v.Me {
		l.Circle(px, py, r+3, draw.White)
	}
	if s.Flash > 0 {
		l.Circle(px, py, r+2, draw.RGB(255, 255, 255))
	}
	l.Circle(px, py, r, c)
	nx, ny := math.Cos(ang), -math.Sin(ang) // the canvas's Y is down
	l.Line(px, py, px+int(nx*float64(r)*1.8), py+int(ny*float64(r)*1.8), c)
	l.FillRect(px-r, py+r+4, 2*r, 3, draw.RGB(60, 20, 20))
	l.FillRect(px-r, py+r+4, 2*r*int(s.Health)/MaxHealth, 3, draw.RGB(80, 220, 100))
	l.Text(px+r+4, py-r-12+draw.Ascent, fmt.Sprint(s.Player), draw.White)
}

// Control returns the input of controls c: left/right or A/D turn (left
// counterclockwise), up or W thrusts, fire (space or the primary button)
// fires.
func (g *Game) Control(_ rewind.View, c draw.Controls, _ Input) Input {
	return Input{Turn: c.Axis(draw.Right, draw.Left), Thrust: c.Has(draw.Up), Fire: c.Has(draw.Fire)}
}

// Sound returns the sound of effect e: a hit's (EffectHit: 120 ms
// falling from 440 to 110 Hz); no other.
func Sound(e rewind.Effect) (draw.Sound, bool) {
	if e.Kind != EffectHit {
		return draw.Sound{}, false
	}
	return draw.Sound{FromHz: 440, ToHz: 110, Ms: 120, Volume: 300}, true
}
