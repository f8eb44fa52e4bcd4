package walkers

import (
	"strconv"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
)

// Size returns the canvas the view would like: the field's 100 m at 5
// pixels a metre.
func (g *Game) Size() (w, h int) { return 500, 500 }

// field maps the field onto a canvas: k pixels a centimetre, the
// field's top left at (ox, oy).
type field struct{ k, ox, oy float64 }

func fieldOf(v rewind.View) field {
	side := float64(min(v.Width, v.Height))
	return field{k: side / (2 * HalfField), ox: (float64(v.Width) - side) / 2, oy: (float64(v.Height) - side) / 2}
}

// px returns where the field's point (x, y) (cm, Y down as the
// canvas's) is on the canvas.
func (f field) px(x, y float64) (int, int) {
	return int(f.ox + (x+HalfField)*f.k), int(f.oy + (y+HalfField)*f.k)
}

// cm returns the field's point at canvas pixel (x, y), clamped to the
// field.
func (f field) cm(x, y int32) (int32, int32) {
	cx := int32((float64(x)-f.ox)/f.k) - HalfField
	cy := int32((float64(y)-f.oy)/f.k) - HalfField
	return min(max(cx, -HalfField), HalfField), min(max(cy, -HalfField), HalfField)
}

// Draw draws what v shows: the field with a line every 10 m, each
// walker between its last two places (a disc in its player's colour,
// the viewer's on a white one, red-rimmed while blocked) with a line to
// its destination and its id.
func (g *Game) Draw(v rewind.View, l *draw.List) {
	f := fieldOf(v)
	l.Clear(draw.Background)
	grid := draw.RGB(30, 30, 42)
	for m := -HalfField; m <= HalfField; m += 1000 {
		x0, y0 := f.px(float64(m), -HalfField)
		x1, y1 := f.px(float64(m), HalfField)
		l.Line(x0, y0, x1, y1, grid)
		x0, y0 = f.px(-HalfField, float64(m))
		x1, y1 = f.px(HalfField, float64(m))
		l.Line(x0, y0, x1, y1, grid)
	}
	before := g.Walkers(v.Prev)
	r := max(4, int(Radius*f.k))
	for _, w := range g.Walkers(v.Cur) {
		x, y := float64(w.X), float64(w.Y)
		for _, b := range before {
			if b.Player == w.Player {
				x, y = v.Lerp(float64(b.X), x), v.Lerp(float64(b.Y), y)
				break
			}
		}
		c := draw.PlayerColor(int(w.Player))
		px, py := f.px(x, y)
		tx, ty := f.px(float64(w.TX), float64(w.TY))
		if tx != px || ty != py {
			l.Line(px, py, tx, ty, c)
			l.Rect(tx-2, ty-2, 5, 5, c)
		}
		switch {
		case int(w.Player) == v.Me:
			l.Circle(px, py, r+2, draw.White)
		case w.Blocked != 0:
			l.Circle(px, py, r+2, draw.RGB(255, 40, 40))
		}
		l.Circle(px, py, r, c)
		l.Text(px+r+3, py-r+draw.Ascent-4, strconv.Itoa(int(w.Player)), draw.White)
	}
}

// Control returns the input of controls c: the primary button (or a
// touch) sets the destination to the point under the pointer; the
// arrows or WASD walk on from where the viewer's walker is (a
// destination 2 m away that way); else the input stays prev.
func (g *Game) Control(v rewind.View, c draw.Controls, prev Input) Input {
	if c.Has(draw.PointerDown) && c.Width > 0 {
		f := fieldOf(rewind.View{Width: int(c.Width), Height: int(c.Height)})
		x, y := f.cm(c.X, c.Y)
		return Input{X: x, Y: y, Move: true}
	}
	dx, dy := int32(c.Axis(draw.Left, draw.Right)), int32(c.Axis(draw.Up, draw.Down))
	if (dx != 0 || dy != 0) && v.Cur != nil {
		for _, w := range g.Walkers(v.Cur) {
			if int(w.Player) == v.Me {
				x, y := w.X+200*dx, w.Y+200*dy
				return Input{X: min(max(x, -HalfField), HalfField), Y: min(max(y, -HalfField), HalfField), Move: true}
			}
		}
	}
	return prev
}
