package paint

import (
	"strconv"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/draw"
)

// Cell is a board cell's side on the canvas, in pixels.
const Cell = 16

// Size returns the canvas the game would like: the board, Cell pixels a
// cell.
func (g *Game) Size() (w, h int) { return Side * Cell, Side * Cell }

// Draw draws what v shows: the board (one palette-indexed cell block:
// empty cells dark, a painted one in its painter's colour), every
// player's brush outlined in its colour (the viewer's in white) and the
// viewer's score.
func (g *Game) Draw(v rewind.View, l *draw.List) {
	k := max(1, min(v.Width, v.Height)/Side)
	ox, oy := (v.Width-Side*k)/2, (v.Height-Side*k)/2
	l.Clear(draw.Background)
	l.Palette(0, draw.RGB(24, 24, 32))
	for p := range rewind.MaxPlayers {
		l.Palette(uint8(p+1), draw.PlayerColor(p))
	}
	l.Cells(ox, oy, Side, Side, k, k, g.board.Cells(v.Cur))
	b := g.brushes.Ptr(v.Cur)
	for p := range rewind.MaxPlayers {
		if b[p] == (Brush{}) && p != v.Me {
			continue // a brush that never moved: no one's, or not yet
		}
		c := draw.PlayerColor(p)
		if p == v.Me {
			c = draw.White
		}
		l.Rect(ox+int(b[p].X)*k, oy+int(b[p].Y)*k, k, k, c)
	}
	if v.Me >= 0 {
		l.Text(ox+4, oy+4+draw.Ascent, "you: "+strconv.Itoa(g.Score(v.Cur, rewind.PlayerID(v.Me)))+" cells", draw.White)
	}
}

// Control returns the input of controls c: arrows or WASD move the brush
// a cell a tick, fire (space or the primary button) paints.
func (g *Game) Control(_ rewind.View, c draw.Controls, _ Input) Input {
	return Input{DX: c.Axis(draw.Left, draw.Right), DY: c.Axis(draw.Up, draw.Down), Paint: c.Has(draw.Fire)}
}
