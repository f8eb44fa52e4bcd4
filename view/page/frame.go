//go:build js && wasm

package main

import (
	"slices"
	"syscall/js"

	"github.com/rewindnet/rewind/view/tab"
)

// frame returns the newest frame the Worker posted (page.js keeps only
// the newest), or nil before the first.
func (pg *page) frame() *tab.Frame {
	v := js.Global().Get("rewindFrame")
	if !v.IsNull() && !v.IsUndefined() {
		js.Global().Set("rewindFrame", js.Null())
		u := js.Global().Get("Uint8Array").New(v)
		pg.buf = slices.Grow(pg.buf[:0], u.Length())[:u.Length()]
		js.CopyBytesToGo(pg.buf, u)
		if err := pg.cur.UnmarshalBinary(pg.buf); err == nil {
			pg.have = true
		}
	}
	if !pg.have {
		return nil
	}
	return &pg.cur
}

// animate draws on every animation frame: the newest frame (or the
// waiting text), and posts the controls to the Worker when they changed
// (a spectating tab steers nothing).
func (pg *page) animate() {
	pg.redraw = js.FuncOf(func(js.Value, []js.Value) any {
		pg.scr.draw(pg.frame(), *pg.waiting.Load())
		if !pg.cfg.Watch {
			if in := pg.scr.input(); in != pg.input || !pg.posted {
				pg.input, pg.posted = in, true
				pg.post(tab.MsgInput, "k", int(in.Keys), "x", in.X, "y", in.Y, "w", in.Width, "h", in.Height)
			}
		}
		js.Global().Call("requestAnimationFrame", pg.redraw)
		return nil
	})
	js.Global().Call("requestAnimationFrame", pg.redraw)
}
