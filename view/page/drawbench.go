//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/view/tab"
)

// benchDraw measures, on the page's canvas, what a frame costs drawn
// through the game's draw list against the per-game drawing the page did
// before (view/page/draw.go at 157d286: the frame's sand cells copied
// out of its buffer, coloured into an ImageData by material, put and
// scaled up, the avatars as rectangles): n frames each, alternated in
// blocks of ten, on the newest frame's list (its cell block is the
// grid). window.rewindDrawBench(n) runs it and returns {list_ms,
// legacy_ms, frames} (ms a frame, the canvas flushed by a one-pixel
// getImageData at each block's end). It is for the benchmark
// BenchmarkPageDrawList (view/e2e) and draws nothing a player keeps.
func (pg *page) benchDraw(n int) map[string]any {
	f := pg.frame()
	if f == nil {
		return map[string]any{"error": "no frame yet"}
	}
	s := pg.scr
	perf := js.Global().Get("performance")
	now := func() float64 { return perf.Call("now").Float() }
	var cells []byte
	var cmd draw.Command
	var l draw.List
	if err := l.UnmarshalBinary(f.List); err != nil {
		return map[string]any{"error": err.Error()}
	}
	for i := range l.Len() {
		if c := l.Command(i); c.Op == draw.OpCells {
			cmd, cells = c, l.Data(c)
		}
	}
	if cells == nil {
		return map[string]any{"error": "the frame's list has no cell block"}
	}
	cols, rows := draw.CellsSize(cmd)
	cw, _ := draw.CellPixels(cmd)
	old := newLegacy(cols, rows)
	flush := func() { s.ctx.Call("getImageData", 0, 0, 1, 1) }
	var tList, tOld float64
	enc := f.AppendBinary(nil)
	var fr tab.Frame
	for done := 0; done < n; done += 10 {
		t := now()
		for range 10 {
			_ = fr.UnmarshalBinary(enc)
			_ = s.list.UnmarshalBinary(fr.List)
			s.drawer.draw(s.ctx, &s.list, hudHeight, int32(s.gw), int32(s.gh), true)
		}
		flush()
		tList += now() - t
		t = now()
		for range 10 {
			old.draw(s.ctx, append(old.copy[:0], cells...), cw, &l)
		}
		flush()
		tOld += now() - t
	}
	frames := (n + 9) / 10 * 10
	return map[string]any{"list_ms": tList / float64(frames), "legacy_ms": tOld / float64(frames), "frames": frames}
}

// legacy is the page's per-game sand drawing before the draw list, kept
// for benchDraw only.
type legacy struct {
	side, rows    int
	grid, gridCtx js.Value
	img, imgData  js.Value
	pix, copy     []byte
	materials     [4][3]byte
}

func newLegacy(side, rows int) *legacy {
	o := &legacy{side: side, rows: rows, materials: [4][3]byte{{18, 18, 28}, {222, 190, 112}, {58, 118, 228}, {128, 128, 140}}}
	o.grid = js.Global().Get("document").Call("createElement", "canvas")
	o.grid.Set("width", side)
	o.grid.Set("height", rows)
	o.gridCtx = o.grid.Call("getContext", "2d")
	o.img = o.gridCtx.Call("createImageData", side, rows)
	o.imgData = o.img.Get("data")
	o.pix = make([]byte, 4*side*rows)
	for i := 3; i < len(o.pix); i += 4 {
		o.pix[i] = 255
	}
	return o
}

// draw draws the grid of cells (materials) at scale and, as avatars,
// the list's filled rectangles, as draw.go did at 157d286.
func (o *legacy) draw(ctx js.Value, cells []byte, scale int, l *draw.List) {
	for i, c := range cells[:min(len(cells), o.side*o.rows)] {
		rgb := o.materials[c&3]
		k := 4 * i
		o.pix[k], o.pix[k+1], o.pix[k+2] = rgb[0], rgb[1], rgb[2]
	}
	js.CopyBytesToJS(o.imgData, o.pix)
	o.gridCtx.Call("putImageData", o.img, 0, 0)
	ctx.Set("imageSmoothingEnabled", false)
	ctx.Call("drawImage", o.grid, 0, hudHeight, o.side*scale, o.rows*scale)
	for i := range l.Len() {
		if c := l.Command(i); c.Op == draw.OpFillRect {
			ctx.Set("fillStyle", "rgba(255,80,80,1.00)")
			ctx.Call("fillRect", c.Args[0], int(c.Args[1])+hudHeight, c.Args[2], c.Args[3])
			ctx.Call("fillText", "0", int(c.Args[0])+12, int(c.Args[1])+hudHeight-3)
		}
	}
}
