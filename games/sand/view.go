package sand

import (
	"strconv"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
)

// MaterialColors are the cells' colours by material, the palette of the
// grid's cell block.
var MaterialColors = [4]draw.Color{
	draw.RGB(18, 18, 28),
	draw.RGB(222, 190, 112),
	draw.RGB(58, 118, 228),
	draw.RGB(128, 128, 140),
}

// MaterialNames are the materials' names as the view shows the one
// chosen.
var MaterialNames = [4]string{"erase", "sand", "water", "wall"}

// Size returns the canvas the view would like: two pixels a cell up to a
// 384-cell grid, one beyond.
func (g *Game) Size() (w, h int) {
	n := g.side()
	if n <= 384 {
		n *= 2
	}
	return n, n
}

// Draw draws what v shows: the grid (one palette-indexed cell block,
// scaled to the canvas by whole pixels and centred), the avatars between
// their last two places (a square in the player's colour, the viewer's
// outlined in white, a ring while it pours, its id beside it) and the
// material the viewer pours.
func (g *Game) Draw(v rewind.View, l *draw.List) {
	n := g.side()
	k := max(1, min(v.Width, v.Height)/n)
	ox, oy := (v.Width-n*k)/2, (v.Height-n*k)/2
	l.Clear(draw.Background)
	for i, c := range MaterialColors {
		l.Palette(uint8(i), c)
	}
	l.Cells(ox, oy, n, n, k, k, draw.Indexes(g.Cells(v.Cur)))
	before := g.Avatars(v.Prev)
	mine := -1
	for _, a := range g.Avatars(v.Cur) {
		x, y := float64(a.X), float64(a.Y)
		for _, b := range before {
			if b.Player == a.Player {
				x, y = v.Lerp(float64(b.X), x), v.Lerp(float64(b.Y), y)
				break
			}
		}
		sx, sy := ox+int(x*float64(k)/one), oy+int(y*float64(k)/one)
		c := draw.PlayerColor(int(a.Player))
		if a.Pouring != 0 {
			l.Rect(sx-8, sy-8, 16, 16, c)
		}
		l.FillRect(sx-5, sy-5, 10, 10, c)
		if int(a.Player) == v.Me {
			l.Rect(sx-6, sy-6, 12, 12, draw.White)
			mine = int(a.Material & 3)
		}
		l.Text(sx+7, sy-8+draw.Ascent, strconv.Itoa(int(a.Player)), draw.White)
	}
	if mine >= 0 {
		l.Text(ox+4, oy+4+draw.Ascent, "["+MaterialNames[mine]+"]  1-4 choose", draw.White)
	}
}

// Control returns the input of controls c: arrows or WASD move, fire
// (space or the primary button) pours, the keys 1–4 choose erase, sand,
// water, wall; the material chosen stays until another is (prev is the
// input the player sent last; before any, its avatar's material, or
// sand).
func (g *Game) Control(v rewind.View, c draw.Controls, prev Input) Input {
	in := Input{MoveX: c.Axis(draw.Left, draw.Right), MoveY: c.Axis(draw.Up, draw.Down), Pour: c.Has(draw.Fire), Material: prev.Material}
	if prev == (Input{}) {
		in.Material = Sand
		if v.Cur != nil {
			for _, a := range g.Avatars(v.Cur) {
				if int(a.Player) == v.Me {
					in.Material = Material(a.Material & 3)
				}
			}
		}
	}
	if k := c.Number(); k > 0 {
		in.Material = Material(k - 1)
	}
	return in
}

// Sound returns the pour's sound (EffectPour: 70 ms of a tone falling
// from 880 to 440 Hz) for effect e.
func Sound(e rewind.Effect) (draw.Sound, bool) {
	if e.Kind != EffectPour {
		return draw.Sound{}, false
	}
	return draw.Sound{FromHz: 880, ToHz: 440, Ms: 70, Volume: 250}, true
}
