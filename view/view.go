// Package view is rewind's Ebitengine view for people, whichever game:
// the game's draw list (package draw: the game's view draws the
// predicted world between the last two ticks at the frame's fraction),
// drawn by canvas.go as the page draws it on a 2-D canvas, and around it
// the engine's HUD (room, player, players in the match, ping, predicted and verified tick,
// rollbacks, resyncs; "SPECTATING" for a spectator's seat, which reads
// no keys), the stall's "Waiting for: NAME…" line and the net graph.
// Its Update reads the engine's control state (draw.Controls: arrows
// or WASD, fire, alt, keys 1–4, the pointer) and hands it to the game's
// Control function, as the page does; the sounds of the game's effects
// play once each, however often a rollback simulates them again. The
// desktop window (./window) runs it; the browser page (./page) draws the
// same lists without Ebitengine.
//
// It lives in a module of its own, beside the engine's, so that the engine
// never imports Ebitengine and never needs cgo: a desktop build of this
// module needs cgo and the X11/GL headers on Linux, the engine does not.
//
// Ticks do not come from frames: whoever owns the seat calls its Tick.
// With SetReplay it plays a replay (seat.Replay) instead, drawn the same
// way between its last two ticks, with a HUD of its own (tick, speed,
// the keys to pause, seek and change speed).
package view

import (
	"fmt"
	"image"
	"image/color"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/rewindnet/rewind/draw"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
)

// hudHeight is the HUD's height above the game's canvas, in layout
// pixels: two lines of the debug font (16 pixels a line) at hudScale.
const hudHeight = 2 + 2*16*hudScale + 2

// hudScale enlarges the HUD's text: the debug font's glyphs, about 7
// pixels tall, at 1.5× and the window's own scale (1.28× for sand's
// view in a window that fits 1280×800) are about 13 pixels on screen.
const hudScale = 1.5

// Game is the Ebitengine game of a seat (seat.Played) of any game with
// input I: it implements ebiten.Game. Until SetPlayer it shows Waiting's
// text.
type Game[I comparable] struct {
	player atomic.Pointer[seat.Played[I]]
	replay *seat.Replay
	// drawReplay draws a replay's worlds (SetReplay).
	drawReplay func(l *draw.List, w, h int)
	repErr     error // the replay's divergence, shown in the HUD
	gw, gh     int   // the game's canvas

	// Waiting is the text shown before there is a player ("joining").
	Waiting atomic.Pointer[string]
	// OnFrame, if set, is called at the end of every Draw with the screen
	// (the window's --screenshot uses it).
	OnFrame func(screen *ebiten.Image)
	// Sound, if set, plays a sound of the game's effects.
	Sound func(s draw.Sound)

	list    draw.List
	canvas  *canvas
	sounds  []draw.Sound
	stop    bool
	graph   tab.NetGraph     // the net graph's samples
	graphOn bool             // G shows and hides it
	hudImg  [2]*ebiten.Image // each HUD line at 1×, drawn enlarged (hudText)
}

// New returns the view of a game whose canvas is w×h pixels (the game's
// Size: Kind.Size, or seat.Played's).
func New[I comparable](w, h int) *Game[I] {
	return &Game[I]{gw: max(w, 64), gh: max(h, 64), canvas: newCanvas()}
}

// SetPlayer makes g draw and steer p.
func (g *Game[I]) SetPlayer(p *seat.Played[I]) { g.player.Store(p) }

// SetReplay makes g play replay r instead of a player's match (the
// window's --replay), its worlds drawn by drawReplay: Update steps it by
// the wall clock at its speed; space pauses, the left and right arrows
// seek seat.SeekStep back and on (from the nearest keyframe), up and
// down double and halve the speed.
func (g *Game[I]) SetReplay(r *seat.Replay, drawReplay func(l *draw.List, w, h int)) {
	g.replay, g.drawReplay = r, drawReplay
}

// Stop makes the next Update end Ebitengine's loop (ebiten.Termination).
func (g *Game[I]) Stop() { g.stop = true }

// Layout returns the view's fixed layout: the game's canvas, the HUD
// above it.
func (g *Game[I]) Layout(int, int) (int, int) { return g.gw, g.gh + hudHeight }

// Size returns the window's size for the layout.
func (g *Game[I]) Size() (w, h int) { return g.gw, g.gh + hudHeight }

// Update reads the controls into the game's input (through its Control
// function; a spectator's steer nothing), G shows and hides the net
// graph (ping, ticks rolled back and bytes per second over the last
// 15 s; tab.NetGraph), and plays the sounds of the new effects.
func (g *Game[I]) Update() error {
	if g.stop {
		return ebiten.Termination
	}
	if g.replay != nil {
		g.updateReplay(time.Now())
		return nil
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyG) {
		g.graphOn = !g.graphOn
	}
	p := g.player.Load()
	if p == nil || p.Done() {
		return nil
	}
	now := time.Now()
	if !p.Spectating() {
		p.Control(now, readControls(int32(g.gw), int32(g.gh)))
	}
	g.sounds = p.Sounds(g.sounds[:0])
	for _, s := range g.sounds {
		if g.Sound != nil {
			g.Sound(s)
		}
	}
	return nil
}

// updateReplay takes the replay's keys and steps it to now.
func (g *Game[I]) updateReplay(now time.Time) {
	r := g.replay
	var err error
	switch {
	case inpututil.IsKeyJustPressed(ebiten.KeySpace):
		r.TogglePause()
	case inpututil.IsKeyJustPressed(ebiten.KeyArrowRight):
		err = r.SeekBy(seat.SeekStep)
	case inpututil.IsKeyJustPressed(ebiten.KeyArrowLeft):
		err = r.SeekBy(-seat.SeekStep)
	case inpututil.IsKeyJustPressed(ebiten.KeyArrowUp):
		r.SetSpeed(min(r.Player().Speed()*2, 64))
	case inpututil.IsKeyJustPressed(ebiten.KeyArrowDown):
		r.SetSpeed(max(r.Player().Speed()/2, 1.0/16))
	}
	if uerr := r.Update(now); err == nil {
		err = uerr
	}
	g.repErr = err
}

// keyBits are the keys of each bit of draw.Keys (the page's are the
// same).
var keyBits = []struct {
	keys []ebiten.Key
	bit  draw.Keys
}{
	{[]ebiten.Key{ebiten.KeyArrowLeft, ebiten.KeyA}, draw.Left},
	{[]ebiten.Key{ebiten.KeyArrowRight, ebiten.KeyD}, draw.Right},
	{[]ebiten.Key{ebiten.KeyArrowUp, ebiten.KeyW}, draw.Up},
	{[]ebiten.Key{ebiten.KeyArrowDown, ebiten.KeyS}, draw.Down},
	{[]ebiten.Key{ebiten.KeySpace}, draw.Fire},
	{[]ebiten.Key{ebiten.KeyShiftLeft, ebiten.KeyShiftRight}, draw.Alt},
	{[]ebiten.Key{ebiten.KeyDigit1, ebiten.KeyNumpad1}, draw.Key1},
	{[]ebiten.Key{ebiten.KeyDigit2, ebiten.KeyNumpad2}, draw.Key2},
	{[]ebiten.Key{ebiten.KeyDigit3, ebiten.KeyNumpad3}, draw.Key3},
	{[]ebiten.Key{ebiten.KeyDigit4, ebiten.KeyNumpad4}, draw.Key4},
}

// readControls returns the control state now on a game canvas of w×h.
func readControls(w, h int32) draw.Controls {
	var k draw.Keys
	for _, b := range keyBits {
		for _, key := range b.keys {
			if ebiten.IsKeyPressed(key) {
				k |= b.bit
			}
		}
	}
	if ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft) {
		k |= draw.Fire | draw.PointerDown
	}
	if ebiten.IsMouseButtonPressed(ebiten.MouseButtonRight) {
		k |= draw.Alt
	}
	x, y := ebiten.CursorPosition()
	return draw.Controls{Keys: k, X: int32(x), Y: int32(y) - hudHeight, Width: w, Height: h}
}

// PlayerColor returns player id's colour (draw.PlayerColor).
func PlayerColor(id uint16) color.RGBA {
	c := draw.PlayerColor(int(id))
	return color.RGBA{c.R, c.G, c.B, 255}
}

// Draw draws the game's list of the predicted world and the HUD.
func (g *Game[I]) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{8, 8, 12, 255})
	if r := g.replay; r != nil {
		g.list.Reset()
		g.drawReplay(&g.list, g.gw, g.gh)
		g.canvas.draw(screen, &g.list, hudHeight, g.gw, g.gh)
		g.drawReplayHUD(screen, r)
		g.frame(screen)
		return
	}
	p := g.player.Load()
	if p == nil {
		msg := "joining..."
		if w := g.Waiting.Load(); w != nil {
			msg = *w
		}
		ebitenutil.DebugPrintAt(screen, msg, 8, 8)
		g.frame(screen)
		return
	}
	p.Draw(time.Now(), g.gw, g.gh, &g.list)
	g.canvas.draw(screen, &g.list, hudHeight, g.gw, g.gh)
	g.drawHUDLines(screen, seatHUD(p.Seat))
	if line := p.WaitingFor(); line != "" {
		drawWaitingLine(screen, line, g.gw)
	}
	st := p.Stats()
	g.graph.Add(float64(time.Now().UnixNano())/1e6, float64(st.Ping)/float64(time.Millisecond), st.RolledBackTicks, st.BytesIn, st.BytesOut)
	if g.graphOn {
		drawNetGraph(screen, &g.graph, g.gw)
	}
	g.frame(screen)
}

// drawReplayHUD draws a replay's HUD: its name, speed, tick and the
// keys.
func (g *Game[I]) drawReplayHUD(screen *ebiten.Image, r *seat.Replay) {
	rp := r.Player()
	state := ""
	switch {
	case g.repErr != nil:
		state = "  STOPPED: " + g.repErr.Error()
	case r.Paused():
		state = "  paused"
	case rp.Done():
		state = "  end"
	}
	line1 := fmt.Sprintf("replay %s  speed %gx%s", r.Name(), rp.Speed(), state)
	line2 := fmt.Sprintf("tick %d / %d  (space pause, left/right seek %v, up/down speed)", rp.Tick(), rp.Last(), seat.SeekStep)
	g.hudText(screen, line1, line2)
}

func (g *Game[I]) frame(screen *ebiten.Image) {
	if g.OnFrame != nil {
		g.OnFrame(screen)
	}
}

// hud is what the HUD shows.
type hud struct {
	room, id, state     string
	ping                float64 // ms
	spectating          bool
	delay               time.Duration
	predicted, verified uint32
	rollbacks, resyncs  uint64
	players             int
}

// seatHUD returns the HUD's figures of a seat.
func seatHUD[I comparable, G any](p *seat.Seat[I, G]) hud {
	st := p.Stats()
	h := hud{room: p.Room(), id: "-", ping: float64(st.Ping) / float64(time.Millisecond),
		spectating: p.Spectating(), delay: p.Delay(), predicted: st.Predicted, verified: st.Verified,
		rollbacks: st.Rollbacks, resyncs: st.Resyncs, players: st.Players}
	if me, ok := p.Session().Player(); ok {
		h.id = fmt.Sprint(me)
	}
	switch {
	case p.Err() != nil:
		h.state = "  STOPPED: " + p.Err().Error()
	case p.Done():
		h.state = "  done"
	}
	return h
}

func (g *Game[I]) drawHUDLines(screen *ebiten.Image, h hud) {
	line1 := fmt.Sprintf("room %s  player %s  players %d  ping %.0f ms%s", h.room, h.id, h.players, h.ping, h.state)
	if h.spectating {
		behind := ""
		if h.delay > 0 {
			behind = fmt.Sprintf(" %v behind", h.delay)
		}
		line1 = fmt.Sprintf("room %s  SPECTATING%s  players %d  ping %.0f ms%s", h.room, behind, h.players, h.ping, h.state)
	}
	line2 := fmt.Sprintf("tick %d  verified %d  rollbacks %d  resyncs %d",
		h.predicted, h.verified, h.rollbacks, h.resyncs)
	g.hudText(screen, line1, line2)
}

// hudText draws the HUD's two lines at hudScale, each through an image
// of its own at the debug font's size (kept from frame to frame).
func (g *Game[I]) hudText(screen *ebiten.Image, lines ...string) {
	for i, line := range lines[:min(len(lines), len(g.hudImg))] {
		img := g.hudImg[i]
		if img == nil {
			img = ebiten.NewImage(max(g.gw, 64), 16)
			g.hudImg[i] = img
		}
		img.Clear()
		ebitenutil.DebugPrintAt(img, line, 0, 0)
		var op ebiten.DrawImageOptions
		op.GeoM.Scale(hudScale, hudScale)
		op.GeoM.Translate(4, 2+float64(i)*16*hudScale)
		screen.DrawImage(img, &op)
	}
}

// drawNetGraph draws graph in the top right corner of a view viewWidth
// pixels wide, below the HUD (the page draws the same).
func drawNetGraph(screen *ebiten.Image, graph *tab.NetGraph, viewWidth int) {
	const width, strip = 220, 36
	plots := graph.Plots()
	x0, y0 := float32(viewWidth-width-4), float32(hudHeight+4)
	vector.DrawFilledRect(screen, x0, y0, width, float32(strip*len(plots)+4), color.RGBA{0, 0, 0, 190}, false)
	for i, p := range plots {
		top := y0 + float32(i*strip) + 2
		ebitenutil.DebugPrintAt(screen, p.Label, int(x0)+4, int(top)-2)
		c := color.RGBA{p.RGB[0], p.RGB[1], p.RGB[2], 255}
		for j := 1; j < len(p.Values); j++ {
			x := func(k int) float32 { return x0 + 4 + float32(k)*(width-8)/float32(tab.NetSamples-1) }
			y := func(k int) float32 { return top + strip - 2 - float32(p.Values[k])*(strip-18) }
			vector.StrokeLine(screen, x(j-1), y(j-1), x(j), y(j), 1, c, false)
		}
	}
}

// drawWaitingLine draws the stall's "Waiting for: NAME…" line (seat's
// WaitingFor) on a dark band across the top of a view width pixels wide,
// while the server holds the match. The debug font has ASCII only: the
// ellipsis is drawn as three dots.
func drawWaitingLine(screen *ebiten.Image, line string, width int) {
	line = strings.ReplaceAll(line, "…", "...")
	vector.DrawFilledRect(screen, 0, hudHeight+4, float32(width), 24, color.RGBA{0, 0, 0, 200}, false)
	x := max(4, (width-6*utf8.RuneCountInString(line))/2) // the debug font is 6 pixels a glyph
	ebitenutil.DebugPrintAt(screen, line, x, hudHeight+8)
}

// Screenshot returns a copy of screen's pixels.
func Screenshot(screen *ebiten.Image) *image.RGBA {
	b := screen.Bounds()
	img := image.NewRGBA(b)
	screen.ReadPixels(img.Pix)
	return img
}
