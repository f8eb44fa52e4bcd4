// Package draw is what a game's view says to draw: a short list of
// drawing commands (clear, filled and outlined rectangles, filled
// circles, lines, text, a palette-indexed block of cells, a sound) that
// the page (a 2-D canvas) and the window (Ebitengine) each draw the same
// way, whatever the game. The engine draws its HUD, net graph and status
// line around the list; the game draws only its canvas, whose size in
// pixels it is given. Controls goes the other way: the engine's control
// state (keys, pointer, canvas size) that one function per game turns
// into its input.
//
// A list's binary form is a WebAssembly module's draw list
// (rewind_draw's, docs/modules.md), so a list a Go game builds and one a
// module returns draw alike. All little-endian:
//
//	u32 count
//	count × 20 bytes: u8 op, u8 r, u8 g, u8 b, i32 a, i32 b, i32 c, i32 d
//
//	op 1 FillRect  x, y, w, h          a filled rectangle
//	op 2 Rect      x, y, w, h          a 1-pixel outline
//	op 3 Circle    cx, cy, radius, –   a filled circle
//	op 4 Line      x1, y1, x2, y2      a 1-pixel line
//	op 5 Text      x, y, addr, len     UTF-8 text, (x, y) its baseline's left end, in the HUD font
//	op 6 Clear     –                   the whole canvas in the colour
//	op 7 Palette   index, –, –, –      palette entry index (0–255) becomes the colour
//	op 8 Cells     x, y, addr, cols | rows<<16
//	               cols×rows bytes, row by row, each a palette index,
//	               drawn from (x, y) with cells r pixels wide and g high
//	               (r 0: 1; g 0: r); b must be 0
//	op 9 Sound     fromHz, toHz, ms, volume (0–1000)
//	               a tone sliding from fromHz to toHz; played once when
//	               a new list is first drawn, not on redraws of it
//
// Unknown ops are skipped. Addresses are offsets into the memory the list
// is read from: a module's linear memory, or for AppendBinary's encoding
// the encoding itself (the list at 0, its texts and cells after the
// commands). The palette starts all black in each list and keeps its
// entries to the list's end.
package draw

import (
	"encoding/binary"
	"unicode/utf8"
)

// Op is a command's kind.
type Op uint8

// The ops of the binary form (the package doc has their arguments).
const (
	OpFillRect Op = 1
	OpRect     Op = 2
	OpCircle   Op = 3
	OpLine     Op = 4
	OpText     Op = 5
	OpClear    Op = 6
	OpPalette  Op = 7
	OpCells    Op = 8
	OpSound    Op = 9
)

// Limits of a list, which Decode enforces on untrusted bytes.
const (
	// CommandSize is one command's bytes in the binary form.
	CommandSize = 20
	// MaxCommands is the most commands a list holds.
	MaxCommands = 1 << 16
	// MaxData is the most bytes a list's texts and cells add up to.
	MaxData = 16 << 20
	// MaxText is the most bytes of one text (longer texts are cut at a
	// rune's start).
	MaxText = 1024
	// MaxCellSide is the most columns or rows of one cell block.
	MaxCellSide = 4096
)

// Color is an opaque RGB colour.
type Color struct{ R, G, B uint8 }

// RGB returns the colour (r, g, b).
func RGB(r, g, b uint8) Color { return Color{r, g, b} }

// Command is one command: its op, colour and four arguments as the
// binary form has them, except that a text's or a cell block's address
// is an offset into its list's data (List.Data reads it).
type Command struct {
	Op    Op
	Color Color
	Args  [4]int32
}

// Sound is a short tone: a slide from FromHz to ToHz over Ms
// milliseconds at Volume (0–1000) that fades out.
type Sound struct {
	FromHz, ToHz, Ms, Volume int32
}

// List is a draw list. Its zero value is empty and ready; Reset empties
// it keeping its memory, so a view can build one per frame without
// allocating.
type List struct {
	cmds []Command
	data []byte
}

// Reset empties l.
func (l *List) Reset() { l.cmds, l.data = l.cmds[:0], l.data[:0] }

// Len returns the number of commands.
func (l *List) Len() int { return len(l.cmds) }

// Command returns command i (0 <= i < Len).
func (l *List) Command(i int) Command { return l.cmds[i] }

// Data returns the bytes of a text or cell command of l (its text, or
// its cells), aliasing l; nil for other commands.
func (l *List) Data(c Command) []byte {
	if c.Op != OpText && c.Op != OpCells {
		return nil
	}
	off, n := int(c.Args[2]), dataLen(c)
	if off < 0 || n < 0 || off+n > len(l.data) {
		return nil
	}
	return l.data[off : off+n]
}

// dataLen returns the bytes of c's data: a text's length, a cell block's
// cols×rows.
func dataLen(c Command) int {
	if c.Op == OpCells {
		cols, rows := CellsSize(c)
		return cols * rows
	}
	return int(c.Args[3])
}

// CellsSize returns a cell command's columns and rows.
func CellsSize(c Command) (cols, rows int) {
	return int(uint32(c.Args[3]) & 0xffff), int(uint32(c.Args[3]) >> 16)
}

// CellPixels returns a cell command's cell width and height in pixels.
func CellPixels(c Command) (w, h int) {
	w, h = int(c.Color.R), int(c.Color.G)
	if w == 0 {
		w = 1
	}
	if h == 0 {
		h = w
	}
	return w, h
}

func (l *List) add(op Op, c Color, a, b, cc, d int) {
	l.cmds = append(l.cmds, Command{Op: op, Color: c, Args: [4]int32{int32(a), int32(b), int32(cc), int32(d)}})
}

// Clear fills the whole canvas with c.
func (l *List) Clear(c Color) { l.add(OpClear, c, 0, 0, 0, 0) }

// FillRect fills the rectangle of w×h pixels at (x, y) with c.
func (l *List) FillRect(x, y, w, h int, c Color) { l.add(OpFillRect, c, x, y, w, h) }

// Rect outlines the rectangle of w×h pixels at (x, y) 1 pixel wide.
func (l *List) Rect(x, y, w, h int, c Color) { l.add(OpRect, c, x, y, w, h) }

// Circle fills the circle of radius r around (cx, cy).
func (l *List) Circle(cx, cy, r int, c Color) { l.add(OpCircle, c, cx, cy, r, 0) }

// Line draws a 1-pixel line from (x1, y1) to (x2, y2).
func (l *List) Line(x1, y1, x2, y2 int, c Color) { l.add(OpLine, c, x1, y1, x2, y2) }

// Text draws s in the engine's HUD font, (x, y) being its baseline's
// left end; s is cut to MaxText bytes.
func (l *List) Text(x, y int, s string, c Color) {
	s = cut(s, MaxText)
	l.add(OpText, c, x, y, len(l.data), len(s))
	l.data = append(l.data, s...)
}

// cut returns s cut to at most n bytes at a rune's start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Palette sets palette entry i (0–255) to c for the cell blocks after
// it.
func (l *List) Palette(i uint8, c Color) { l.add(OpPalette, c, int(i), 0, 0, 0) }

// Cells draws a block of cols×rows cells (row by row, each a palette
// index; cells holds at least cols×rows bytes) from (x, y), each cell
// cellW×cellH pixels (1–255). Cols and rows are 1..MaxCellSide, else the
// block is not added.
func (l *List) Cells(x, y, cols, rows, cellW, cellH int, cells []byte) {
	if cols < 1 || rows < 1 || cols > MaxCellSide || rows > MaxCellSide || len(cells) < cols*rows {
		return
	}
	c := Color{uint8(max(1, min(cellW, 255))), uint8(max(1, min(cellH, 255))), 0}
	l.add(OpCells, c, x, y, len(l.data), cols|rows<<16)
	l.data = append(l.data, cells[:cols*rows]...)
}

// Sound plays s once, when the list is first drawn.
func (l *List) Sound(s Sound) {
	l.add(OpSound, Color{}, int(s.FromHz), int(s.ToHz), int(s.Ms), int(s.Volume))
}

// SoundOf returns a sound command's tone.
func SoundOf(c Command) Sound { return Sound{c.Args[0], c.Args[1], c.Args[2], c.Args[3]} }

// Length returns the bytes of l's binary form.
func (l *List) Length() int { return 4 + CommandSize*len(l.cmds) + len(l.data) }

// AppendBinary appends l's binary form to b: the count, the commands,
// then the texts' and cells' bytes, their addresses counted from the
// encoding's first byte.
func (l *List) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	base := 4 + CommandSize*len(l.cmds)
	b = le.AppendUint32(b, uint32(len(l.cmds)))
	for _, c := range l.cmds {
		b = append(b, byte(c.Op), c.Color.R, c.Color.G, c.Color.B)
		args := c.Args
		if c.Op == OpText || c.Op == OpCells {
			args[2] += int32(base)
		}
		for _, v := range args {
			b = le.AppendUint32(b, uint32(v))
		}
	}
	return append(b, l.data...)
}

// UnmarshalBinary decodes AppendBinary's encoding into l (Decode of b at
// 0).
func (l *List) UnmarshalBinary(b []byte) error { return l.Decode(b, 0) }
