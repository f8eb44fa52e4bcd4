package view

import (
	"image"
	"image/color"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/rewindnet/rewind/draw"
)

// canvas draws a game's draw list on an Ebitengine image, the game's
// canvas starting top pixels down (the HUD is above it): draw.Drawer,
// the window's twin of the page's 2-D canvas. A cell block is an image
// of a pixel a cell, scaled up; text is Ebitengine's debug font (6×16
// pixels a glyph), tinted.
type canvas struct {
	dst    *ebiten.Image
	top    float32
	w, h   int
	blocks map[int]*cellImage
	text   *ebiten.Image // scratch for tinted text
}

// cellImage is a cell block's image and its pixels.
type cellImage struct {
	cols, rows int
	img        *ebiten.Image
	pix        []byte
}

func newCanvas() *canvas { return &canvas{blocks: map[int]*cellImage{}} }

func rgba(c draw.Color) color.RGBA { return color.RGBA{c.R, c.G, c.B, 255} }

// Clear fills the game's canvas.
func (d *canvas) Clear(c draw.Color) {
	vector.DrawFilledRect(d.dst, 0, d.top, float32(d.w), float32(d.h), rgba(c), false)
}

// FillRect fills a rectangle.
func (d *canvas) FillRect(x, y, w, h int32, c draw.Color) {
	vector.DrawFilledRect(d.dst, float32(x), float32(y)+d.top, float32(w), float32(h), rgba(c), false)
}

// Rect outlines a rectangle 1 pixel wide.
func (d *canvas) Rect(x, y, w, h int32, c draw.Color) {
	vector.StrokeRect(d.dst, float32(x)+0.5, float32(y)+d.top+0.5, float32(max(0, w-1)), float32(max(0, h-1)), 1, rgba(c), false)
}

// Circle fills a circle.
func (d *canvas) Circle(cx, cy, r int32, c draw.Color) {
	vector.DrawFilledCircle(d.dst, float32(cx), float32(cy)+d.top, float32(max(0, r)), rgba(c), true)
}

// Line draws a 1-pixel line.
func (d *canvas) Line(x1, y1, x2, y2 int32, c draw.Color) {
	vector.StrokeLine(d.dst, float32(x1)+0.5, float32(y1)+d.top+0.5, float32(x2)+0.5, float32(y2)+d.top+0.5, 1, rgba(c), false)
}

// Text draws s with its baseline at y: the debug font's glyphs, white,
// tinted to c.
func (d *canvas) Text(x, y int32, s string, c draw.Color) {
	top := int(y) - 12 + int(d.top)
	if c == draw.White {
		ebitenutil.DebugPrintAt(d.dst, s, int(x), top)
		return
	}
	if d.text == nil {
		d.text = ebiten.NewImage(6*draw.MaxText+8, 16)
	}
	n := min(len(s), draw.MaxText)
	d.text.Clear()
	ebitenutil.DebugPrintAt(d.text, s, 0, 0)
	op := &ebiten.DrawImageOptions{}
	op.ColorScale.Scale(float32(c.R)/255, float32(c.G)/255, float32(c.B)/255, 1)
	op.GeoM.Translate(float64(x), float64(top))
	d.dst.DrawImage(d.text.SubImage(image.Rect(0, 0, 6*n+2, 16)).(*ebiten.Image), op)
}

// Cells draws a cell block.
func (d *canvas) Cells(i int, x, y int32, cols, rows, cw, ch int, cells []byte, pal *draw.Palette) {
	b := d.blocks[i]
	if b == nil || b.cols != cols || b.rows != rows {
		if b != nil {
			b.img.Deallocate()
		}
		b = &cellImage{cols: cols, rows: rows, img: ebiten.NewImage(cols, rows), pix: make([]byte, 4*cols*rows)}
		d.blocks[i] = b
	}
	var table [256][4]byte
	for k, c := range pal {
		table[k] = [4]byte{c.R, c.G, c.B, 255}
	}
	for k, c := range cells[:cols*rows] {
		*(*[4]byte)(b.pix[4*k : 4*k+4]) = table[c]
	}
	b.img.WritePixels(b.pix)
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Scale(float64(cw), float64(ch))
	op.GeoM.Translate(float64(x), float64(y)+float64(d.top))
	d.dst.DrawImage(b.img, op)
}

// draw draws l on dst, the game's canvas w×h from top.
func (d *canvas) draw(dst *ebiten.Image, l *draw.List, top, w, h int) {
	d.dst, d.top, d.w, d.h = dst, float32(top), w, h
	l.Draw(d)
}
