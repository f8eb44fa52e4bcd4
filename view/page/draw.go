//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"syscall/js"

	"github.com/rewindnet/rewind/view/tab"
)

// The layout, as the window's (package view): a cell takes scale pixels,
// the HUD hudHeight above the grid; a pour's flash lasts flashFrames.
const (
	scale       = 2
	hudHeight   = 36
	flashFrames = 12
)

// screen draws the frames the Worker posts on the page's 2-D canvas, on
// the browser's animation frames: the grid (one ImageData, scaled up
// without smoothing), the avatars between their last two places, the HUD
// and the stall line, as the window draws them with Ebitengine. The page
// links no Ebitengine: a 2-D canvas needs no WebGL context and no
// shaders before the first frame, and the page's wasm is a fraction of
// the size (docs/benchmarks.md).
type screen struct {
	doc, canvas, ctx js.Value
	grid, gridCtx    js.Value // a side×side canvas holding the cells
	img, imgData     js.Value // its ImageData and the ImageData's bytes
	side             int
	w, h             int     // the canvas's layout size
	shown            float64 // the CSS scale last set
	pix              []byte
	flashes          map[uint16]int // player → frames of flash left
	poursAt          float64        // the At of the last frame whose pours flashed
	cellsAt          float64        // the At of the frame whose cells the grid's canvas holds
	controls         *controls
	graph            tab.NetGraph
}

// newScreen adds the page's canvas for a side×side grid (side <= 0: 256).
func newScreen(side int, c *controls) *screen {
	if side <= 0 {
		side = 256
	}
	doc := js.Global().Get("document")
	s := &screen{doc: doc, flashes: map[uint16]int{}, controls: c}
	s.canvas = doc.Call("createElement", "canvas")
	s.canvas.Set("id", "screen")
	st := s.canvas.Get("style")
	st.Set("display", "block")
	st.Set("margin", "0 auto")
	st.Set("imageRendering", "pixelated")
	doc.Get("body").Call("prepend", s.canvas)
	s.grid = doc.Call("createElement", "canvas")
	s.resize(side)
	c.listen(s.canvas)
	return s
}

// resize makes the canvas fit a side×side grid.
func (s *screen) resize(side int) {
	s.side, s.w, s.h, s.shown = side, side*scale, side*scale+hudHeight, 0
	s.canvas.Set("width", s.w)
	s.canvas.Set("height", s.h)
	s.ctx = s.canvas.Call("getContext", "2d", map[string]any{"alpha": false})
	s.grid.Set("width", side)
	s.grid.Set("height", side)
	s.gridCtx = s.grid.Call("getContext", "2d")
	s.img = s.gridCtx.Call("createImageData", side, side)
	s.imgData = s.img.Get("data")
	s.pix = make([]byte, 4*side*side)
	for i := 3; i < len(s.pix); i += 4 {
		s.pix[i] = 255
	}
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

// draw draws frame f at alpha, or, before the first frame, the waiting
// text.
func (s *screen) draw(f *tab.Frame, alpha float64, waiting string) {
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
	if f.At != s.cellsAt { // a new frame: its cells to the grid's canvas
		s.cellsAt = f.At
		if f.Side != 0 && len(f.Cells) > 0 && int(f.Side) != s.side {
			s.resize(int(f.Side)) // the host's grid (tab.Config.HostSettings)
		}
		s.putCells(f.Cells)
	}
	s.ctx.Set("imageSmoothingEnabled", false)
	s.ctx.Call("drawImage", s.grid, 0, hudHeight, s.side*scale, s.side*scale)
	if f.At != s.poursAt {
		s.poursAt = f.At
		for _, id := range f.Pours {
			s.flashes[id] = flashFrames
			s.controls.blip()
		}
	}
	for _, a := range f.Avatars {
		x := float64(a.PX) + alpha*float64(a.X-a.PX)
		y := float64(a.PY) + alpha*float64(a.Y-a.PY)
		s.drawAvatar(a.Player, x/256, y/256, int32(a.Player) == f.Me)
	}
	line1, line2 := hudLines(f, tab.MaterialNames[s.controls.material()&3])
	s.text(line1, 4, 4, "#fff")
	s.text(line2, 4, 20, "#fff")
	if f.Waiting != "" {
		s.drawWaiting(f.Waiting)
	}
	if s.controls.graphShown() {
		s.drawGraph()
	}
	s.ageFlashes()
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

// drawer draws the frames of the page's game: screen (sand) or
// shipsScreen.
type drawer interface {
	// draw draws frame f at alpha, or, before the first frame, the
	// waiting text.
	draw(f *tab.Frame, alpha float64, waiting string)
	// input returns the game's controls now, packed for the Worker.
	input() int
}

// input returns sand's controls now, packed (tab.Input.Pack).
func (s *screen) input() int { return s.controls.read().Pack() }

// text draws line at (x, y) in colour c.
func (s *screen) text(line string, x, y int, c string) {
	s.ctx.Set("fillStyle", c)
	s.ctx.Call("fillText", line, x, y)
}

// putCells puts the grid of materials on the grid's canvas.
func (s *screen) putCells(cells []byte) {
	n := min(len(cells), s.side*s.side)
	for i, c := range cells[:n] {
		rgb := tab.MaterialRGB[c&3]
		o := 4 * i
		s.pix[o], s.pix[o+1], s.pix[o+2] = rgb[0], rgb[1], rgb[2]
	}
	js.CopyBytesToJS(s.imgData, s.pix)
	s.gridCtx.Call("putImageData", s.img, 0, 0)
}

// rgba returns a CSS colour.
func rgba(c [3]byte, a float64) string {
	return fmt.Sprintf("rgba(%d,%d,%d,%.2f)", c[0], c[1], c[2], a)
}

// drawAvatar draws player id's avatar at cell coordinates (x, y): a
// square in its colour (outlined in white for this tab's own), its id
// beside it, and a flash ring while a pour has just started.
func (s *screen) drawAvatar(id uint16, x, y float64, own bool) {
	ctx := s.ctx
	sx, sy := x*scale, y*scale+hudHeight
	c := tab.PlayerRGB(id)
	if n := s.flashes[id]; n > 0 {
		ctx.Call("beginPath")
		ctx.Call("arc", sx, sy, 6+2*float64(flashFrames-n), 0, 2*math.Pi)
		ctx.Set("strokeStyle", rgba(c, float64(20*n)/255))
		ctx.Set("lineWidth", 2)
		ctx.Call("stroke")
	}
	ctx.Set("fillStyle", rgba(c, 1))
	ctx.Call("fillRect", sx-5, sy-5, 10, 10)
	if own {
		ctx.Set("strokeStyle", "#fff")
		ctx.Set("lineWidth", 1.5)
		ctx.Call("strokeRect", sx-6, sy-6, 12, 12)
	}
	s.text(fmt.Sprint(id), int(sx)+7, int(sy)-8, "#fff")
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

// ageFlashes counts the pour flashes' frames down.
func (s *screen) ageFlashes() {
	for id, n := range s.flashes {
		if n <= 1 {
			delete(s.flashes, id)
		} else {
			s.flashes[id] = n - 1
		}
	}
}

// hudLines returns the HUD's two lines for frame f, material being the
// name of the material chosen: the window's HUD (package view), from the
// Worker's figures.
func hudLines(f *tab.Frame, material string) (string, string) {
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
	line1 := fmt.Sprintf("room %s  player %s  players %d  ping %.0f ms  [%s]%s", f.Room, id, f.Players, f.Ping, material, state)
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
