//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/view/tab"
)

// The layout, as the window's (package view, whose HUD is 52 pixels:
// its debug-font text enlarged): the HUD hudHeight above
// the game's canvas, which is the game's size (rewind.View's), or
// defaultSide square before the first frame.
const (
	hudHeight   = 36
	defaultSide = 512
)

// screen draws the frames the Worker posts on the page's 2-D canvas, on
// the browser's animation frames: the game's draw list (canvas.go, any
// game the same way), the HUD, the stall line and the net graph, as the
// window draws them with Ebitengine. The page links no Ebitengine and no
// game: a 2-D canvas needs no WebGL context and no shaders before the
// first frame, and the page's wasm is a fraction of the size
// (docs/benchmarks.md).
type screen struct {
	doc, canvas, ctx js.Value
	gw, gh           int     // the game's canvas
	w, h             int     // the page's canvas's layout size
	shown            float64 // the CSS scale last set
	list             draw.List
	listAt           float64 // the At of the frame whose list l holds
	listOK           bool
	sounds           []draw.Sound
	drawer           *canvas
	controls         *controls
	graph            tab.NetGraph
}

// newScreen adds the page's canvas.
func newScreen(c *controls) *screen {
	doc := js.Global().Get("document")
	s := &screen{doc: doc, controls: c, drawer: newCanvas()}
	s.canvas = doc.Call("createElement", "canvas")
	s.canvas.Set("id", "screen")
	st := s.canvas.Get("style")
	st.Set("display", "block")
	st.Set("margin", "0 auto")
	st.Set("imageRendering", "pixelated")
	doc.Get("body").Call("prepend", s.canvas)
	s.resize(defaultSide, defaultSide)
	c.listen(s.canvas)
	return s
}

// resize makes the canvas fit a game canvas of w×h.
func (s *screen) resize(w, h int) {
	s.gw, s.gh, s.w, s.h, s.shown = w, h, w, h+hudHeight, 0
	s.canvas.Set("width", s.w)
	s.canvas.Set("height", s.h)
	s.ctx = s.canvas.Call("getContext", "2d", map[string]any{"alpha": false})
}

// fit scales the canvas (in CSS pixels, keeping its proportions) to the
// window above the page's footer (#bar).
func (s *screen) fit() {
	// The layout viewport (a phone zooms innerWidth out to whatever
	// overflows it), less the footer, which never covers the playfield.
	doc := js.Global().Get("document")
	root := doc.Get("documentElement")
	room := root.Get("clientHeight").Float()
	if bar := doc.Call("getElementById", "bar"); bar.Truthy() {
		room -= bar.Get("offsetHeight").Float()
	}
	k := math.Min(root.Get("clientWidth").Float()/float64(s.w), room/float64(s.h))
	k = math.Max(k, 0.25)
	if k == s.shown {
		return
	}
	s.shown = k
	st := s.canvas.Get("style")
	st.Set("width", fmt.Sprintf("%.0fpx", k*float64(s.w)))
	st.Set("height", fmt.Sprintf("%.0fpx", k*float64(s.h)))
}

// draw draws frame f, or, before the first frame, the waiting text.
func (s *screen) draw(f *tab.Frame, waiting string) {
	s.fit()
	ctx := s.ctx
	ctx.Set("fillStyle", "rgb(8,8,12)")
	ctx.Call("fillRect", 0, 0, s.w, s.h)
	ctx.Set("font", "12px monospace")
	ctx.Set("textBaseline", "top")
	if f == nil {
		s.text(waiting, 8, 8, "#fff")
		return
	}
	s.graph.Add(tab.Now(), f.Ping, uint64(f.RolledBack), uint64(f.BytesIn), uint64(f.BytesOut))
	fresh := f.At != s.listAt
	if fresh { // a new frame: its list, its sounds
		s.listAt = f.At
		if f.Width != 0 && f.Height != 0 && (int(f.Width) != s.gw || int(f.Height) != s.gh) {
			s.resize(int(f.Width), int(f.Height))
			s.fit()
		}
		s.listOK = s.list.UnmarshalBinary(f.List) == nil
		s.sounds = s.list.Sounds(s.sounds[:0])
		for _, snd := range s.sounds {
			s.controls.play(snd)
		}
	}
	if s.listOK {
		s.drawer.draw(ctx, &s.list, hudHeight, int32(s.gw), int32(s.gh), fresh)
		ctx.Set("font", "12px monospace")
		ctx.Set("textBaseline", "top")
	}
	line1, line2 := hudLines(f)
	s.text(line1, 4, 4, "#fff")
	s.text(line2, 4, 20, "#fff")
	if f.Waiting != "" {
		s.drawWaiting(f.Waiting)
	}
	if s.controls.graphShown() {
		s.drawGraph()
	}
}

// input returns the controls now, on the game's canvas.
func (s *screen) input() draw.Controls {
	return s.controls.read(hudHeight, int32(s.gw), int32(s.gh))
}

// drawGraph draws the net graph (tab.NetGraph) in the grid's top right
// corner: a strip per figure, its label above its line.
func (s *screen) drawGraph() {
	const width, strip = 200, 30
	plots := s.graph.Plots()
	ctx := s.ctx
	x0, y0 := float64(s.w-width-4), float64(hudHeight+4)
	ctx.Set("fillStyle", "rgba(0,0,0,0.75)")
	ctx.Call("fillRect", x0, y0, width, strip*len(plots)+4)
	ctx.Set("font", "10px monospace")
	for i, p := range plots {
		top := y0 + float64(i*strip) + 2
		s.text(p.Label, int(x0)+4, int(top), "#ccc")
		ctx.Call("beginPath")
		for j, v := range p.Values {
			x := x0 + 4 + float64(j)*(width-8)/float64(tab.NetSamples-1)
			y := top + strip - 2 - v*(strip-14)
			if j == 0 {
				ctx.Call("moveTo", x, y)
			} else {
				ctx.Call("lineTo", x, y)
			}
		}
		ctx.Set("strokeStyle", rgba(p.RGB, 1))
		ctx.Set("lineWidth", 1)
		ctx.Call("stroke")
	}
	ctx.Set("font", "12px monospace")
}

// text draws line at (x, y) in colour c.
func (s *screen) text(line string, x, y int, c string) {
	s.ctx.Set("fillStyle", c)
	s.ctx.Call("fillText", line, x, y)
}

// rgba returns a CSS colour.
func rgba(c [3]byte, a float64) string {
	return fmt.Sprintf("rgba(%d,%d,%d,%.2f)", c[0], c[1], c[2], a)
}

// drawWaiting draws the stall's "Waiting for: NAME…" line on a dark band
// across the top of the grid.
func (s *screen) drawWaiting(line string) {
	s.ctx.Set("fillStyle", "rgba(0,0,0,0.8)")
	s.ctx.Call("fillRect", 0, hudHeight+4, s.w, 24)
	s.ctx.Set("textAlign", "center")
	s.text(line, s.w/2, hudHeight+10, "#fff")
	s.ctx.Set("textAlign", "start")
}

// hudLines returns the HUD's two lines for frame f: the window's HUD
// (package view), from the Worker's figures.
func hudLines(f *tab.Frame) (string, string) {
	id := "-"
	if f.Me >= 0 {
		id = fmt.Sprint(f.Me)
	}
	state := ""
	switch {
	case f.Stopped != "":
		state = "  STOPPED: " + f.Stopped
	case f.Done:
		state = "  done"
	}
	line1 := fmt.Sprintf("room %s  player %s  players %d  ping %.0f ms%s", f.Room, id, f.Players, f.Ping, state)
	if f.Spectating {
		behind := ""
		if f.Delay > 0 {
			behind = fmt.Sprintf(" %gs behind", math.Round(f.Delay/100)/10)
		}
		line1 = fmt.Sprintf("room %s  SPECTATING%s  players %d  ping %.0f ms%s", f.Room, behind, f.Players, f.Ping, state)
	}
	line2 := fmt.Sprintf("tick %d  verified %d  rollbacks %d  resyncs %d", f.Predicted, f.Verified, f.Rollbacks, f.Resyncs)
	return line1, line2
}
