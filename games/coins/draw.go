package coins

import (
	"strconv"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/world"
)

// Colors are the players' colours, by slot.
var Colors = [MaxPlayers]draw.Color{
	draw.RGB(0xe6, 0x19, 0x4b), draw.RGB(0x3c, 0xb4, 0x4b), draw.RGB(0x43, 0x63, 0xd8), draw.RGB(0xf5, 0x82, 0x31),
	draw.RGB(0x91, 0x1e, 0xb4), draw.RGB(0x42, 0xd4, 0xf4), draw.RGB(0xf0, 0x32, 0xe6), draw.RGB(0xbf, 0xef, 0x45),
}

// scale maps v (0..full) onto 0..px pixels, as coins.c does in 64 bits.
func scale(v int32, px, full int) int { return int(int64(v) * int64(px) / int64(full)) }

// Draw appends w's view to l as coins.c's rewind_draw does, command for
// command: me is the viewer's player (-1 a spectator), width×height the
// canvas, alpha (0..1000) the frame's way to the next tick (positions are
// drawn that far along their speed).
func (g *Game) Draw(w *world.World, me, width, height, alpha int, l *draw.List) {
	st := g.state.Ptr(w)
	l.Clear(draw.RGB(0x10, 0x18, 0x20))
	l.Rect(0, 0, width, height, draw.RGB(0x40, 0x50, 0x60))
	s := scale(Radius, width, Width)
	for c := range Coins {
		l.Circle(scale(st.CX[c], width, Width), scale(st.CY[c], height, Height),
			scale(CoinRadius, width, Width), draw.RGB(0xff, 0xd7, 0x00))
	}
	row := 0
	for i := range MaxPlayers {
		p := &st.P[i]
		if p.On == 0 {
			continue
		}
		x := scale(p.X+p.VX*int32(alpha)/1000, width, Width)
		y := scale(p.Y+p.VY*int32(alpha)/1000, height, Height)
		l.Circle(x, y, s, Colors[i])
		if i == me {
			l.Rect(x-s-2, y-s-2, 2*s+4, 2*s+4, draw.RGB(0xff, 0xff, 0xff))
		}
		row++
		l.Text(8, 16*row, "P"+strconv.Itoa(i+1)+" "+strconv.Itoa(int(p.Score)), Colors[i])
	}
}

// Control returns player me's input for the engine's controls c (as
// coins.c's rewind_control): the arrow keys and fire, or with the
// pointer down, the directions toward the pointer from the player.
func (g *Game) Control(w *world.World, me int, c draw.Controls) Input {
	k := uint8(c.Keys & 31)
	if c.Has(draw.PointerDown) && me >= 0 && me < MaxPlayers && c.Width > 0 && c.Height > 0 {
		p := &g.state.Ptr(w).P[me]
		px, py := int32(scale(p.X, int(c.Width), Width)), int32(scale(p.Y, int(c.Height), Height))
		if c.X < px-4 {
			k |= Left
		}
		if c.X > px+4 {
			k |= Right
		}
		if c.Y < py-4 {
			k |= Up
		}
		if c.Y > py+4 {
			k |= Down
		}
	}
	return Input{Keys: k}
}

// Bot returns a scripted input for player p at tick t: new keys every 8
// ticks from a hash of the period and the player (the keys of
// examples/modules' seeded matches).
func Bot(p rewind.PlayerID, t uint32) Input {
	h := (t>>3+1)*0x9e3779b1 + uint32(p+1)*0x85ebca77
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	return Input{Keys: uint8(h)}
}
