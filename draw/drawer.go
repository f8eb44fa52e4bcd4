package draw

// Drawer draws a list's commands on a surface: the page's 2-D canvas,
// the window's Ebitengine image, a test's recorder. Coordinates are the
// game canvas's pixels.
type Drawer interface {
	Clear(c Color)
	FillRect(x, y, w, h int32, c Color)
	Rect(x, y, w, h int32, c Color)
	Circle(cx, cy, r int32, c Color)
	Line(x1, y1, x2, y2 int32, c Color)
	// Text draws s with (x, y) its baseline's left end.
	Text(x, y int32, s string, c Color)
	// Cells draws the cols×rows palette indexes of cells from (x, y),
	// each cell cellW×cellH pixels; index is the block's place in the
	// list (the index of its command), which a drawer may use to keep
	// what it made of a block while the list is drawn again.
	Cells(index int, x, y int32, cols, rows, cellW, cellH int, cells []byte, palette *Palette)
}

// Palette is a list's palette: 256 colours, all black at the list's
// start.
type Palette [256]Color

// Draw draws l's commands on d in order, keeping the palette: the same
// for every drawer. Sounds are not drawn (Sounds returns them).
func (l *List) Draw(d Drawer) {
	var pal Palette
	for i, c := range l.cmds {
		a := c.Args
		switch c.Op {
		case OpClear:
			d.Clear(c.Color)
		case OpFillRect:
			d.FillRect(a[0], a[1], a[2], a[3], c.Color)
		case OpRect:
			d.Rect(a[0], a[1], a[2], a[3], c.Color)
		case OpCircle:
			d.Circle(a[0], a[1], a[2], c.Color)
		case OpLine:
			d.Line(a[0], a[1], a[2], a[3], c.Color)
		case OpText:
			d.Text(a[0], a[1], string(l.Data(c)), c.Color)
		case OpPalette:
			if a[0] >= 0 && a[0] < 256 {
				pal[a[0]] = c.Color
			}
		case OpCells:
			cols, rows := CellsSize(c)
			w, h := CellPixels(c)
			if cells := l.Data(c); cells != nil {
				d.Cells(i, a[0], a[1], cols, rows, w, h, cells, &pal)
			}
		}
	}
}

// Sounds appends l's sounds to dst and returns it.
func (l *List) Sounds(dst []Sound) []Sound {
	for _, c := range l.cmds {
		if c.Op == OpSound {
			dst = append(dst, SoundOf(c))
		}
	}
	return dst
}
