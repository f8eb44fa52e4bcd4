//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	"github.com/rewindnet/rewind/draw"
)

// canvas draws a game's draw list on the page's 2-D context, the game's
// canvas starting top pixels down (the HUD is above it): draw.Drawer.
// A cell block becomes an ImageData on a canvas of its own (a pixel a
// cell), scaled up without smoothing; it is made again only when a new
// list arrives (fresh), not each time the same list is drawn again.
type canvas struct {
	ctx    js.Value
	top    int32
	w, h   int32
	fresh  bool
	blocks map[int]*block
	colors map[draw.Color]string
}

// block is a cell block's canvas, its ImageData and their pixels.
type block struct {
	cols, rows int
	canvas     js.Value
	ctx        js.Value
	img, data  js.Value
	pix        []byte
}

func newCanvas() *canvas {
	return &canvas{blocks: map[int]*block{}, colors: map[draw.Color]string{}}
}

// css returns c as a CSS colour (kept: a list names few colours).
func (d *canvas) css(c draw.Color) string {
	s, ok := d.colors[c]
	if !ok {
		if len(d.colors) > 4096 {
			clear(d.colors)
		}
		s = fmt.Sprintf("rgb(%d,%d,%d)", c.R, c.G, c.B)
		d.colors[c] = s
	}
	return s
}

// Clear fills the game's canvas.
func (d *canvas) Clear(c draw.Color) {
	d.ctx.Set("fillStyle", d.css(c))
	d.ctx.Call("fillRect", 0, d.top, d.w, d.h)
}

// FillRect fills a rectangle.
func (d *canvas) FillRect(x, y, w, h int32, c draw.Color) {
	d.ctx.Set("fillStyle", d.css(c))
	d.ctx.Call("fillRect", x, y+d.top, w, h)
}

// Rect outlines a rectangle 1 pixel wide, on the pixels' centres.
func (d *canvas) Rect(x, y, w, h int32, c draw.Color) {
	d.ctx.Set("strokeStyle", d.css(c))
	d.ctx.Set("lineWidth", 1)
	d.ctx.Call("strokeRect", float64(x)+0.5, float64(y+d.top)+0.5, max(0, w-1), max(0, h-1))
}

// Circle fills a circle.
func (d *canvas) Circle(cx, cy, r int32, c draw.Color) {
	d.ctx.Call("beginPath")
	d.ctx.Call("arc", cx, cy+d.top, max(0, r), 0, 2*math.Pi)
	d.ctx.Set("fillStyle", d.css(c))
	d.ctx.Call("fill")
}

// Line draws a 1-pixel line.
func (d *canvas) Line(x1, y1, x2, y2 int32, c draw.Color) {
	d.ctx.Call("beginPath")
	d.ctx.Call("moveTo", float64(x1)+0.5, float64(y1+d.top)+0.5)
	d.ctx.Call("lineTo", float64(x2)+0.5, float64(y2+d.top)+0.5)
	d.ctx.Set("strokeStyle", d.css(c))
	d.ctx.Set("lineWidth", 1)
	d.ctx.Call("stroke")
}

// Text draws s on its baseline.
func (d *canvas) Text(x, y int32, s string, c draw.Color) {
	d.ctx.Set("fillStyle", d.css(c))
	d.ctx.Call("fillText", s, x, y+d.top)
}

// Cells draws a cell block: its pixels put once per list.
func (d *canvas) Cells(i int, x, y int32, cols, rows, cw, ch int, cells []byte, pal *draw.Palette) {
	b := d.blocks[i]
	if b == nil || b.cols != cols || b.rows != rows {
		b = newBlock(cols, rows)
		d.blocks[i] = b
		d.fresh = true
	}
	if d.fresh {
		b.put(cells, pal)
	}
	d.ctx.Set("imageSmoothingEnabled", false)
	d.ctx.Call("drawImage", b.canvas, x, y+d.top, cols*cw, rows*ch)
}

func newBlock(cols, rows int) *block {
	b := &block{cols: cols, rows: rows}
	b.canvas = js.Global().Get("document").Call("createElement", "canvas")
	b.canvas.Set("width", cols)
	b.canvas.Set("height", rows)
	b.ctx = b.canvas.Call("getContext", "2d")
	b.img = b.ctx.Call("createImageData", cols, rows)
	b.data = b.img.Get("data")
	b.pix = make([]byte, 4*cols*rows)
	return b
}

// put puts cells, coloured by pal, on the block's canvas.
func (b *block) put(cells []byte, pal *draw.Palette) {
	var rgba [256][4]byte
	for i, c := range pal {
		rgba[i] = [4]byte{c.R, c.G, c.B, 255}
	}
	pix := b.pix
	for i, c := range cells[:b.cols*b.rows] {
		*(*[4]byte)(pix[4*i : 4*i+4]) = rgba[c]
	}
	js.CopyBytesToJS(b.data, pix)
	b.ctx.Call("putImageData", b.img, 0, 0)
}

// draw draws list l on ctx, the game's canvas w×h from top; fresh says
// the list is new since the last call (its cell blocks are put again).
func (d *canvas) draw(ctx js.Value, l *draw.List, top, w, h int32, fresh bool) {
	d.ctx, d.top, d.w, d.h, d.fresh = ctx, top, w, h, fresh
	ctx.Call("save")
	ctx.Call("beginPath")
	ctx.Call("rect", 0, top, w, h)
	ctx.Call("clip")
	ctx.Set("textBaseline", "alphabetic")
	ctx.Set("font", "12px monospace")
	l.Draw(d)
	ctx.Call("restore")
}
