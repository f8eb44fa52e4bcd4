// Package view is rewind's view of the sand game (games/sand) for
// people, with Ebitengine: the grid, the avatars in their players' colours
// with their ids, a HUD (room, player, ping, predicted and verified
// tick, rollbacks, resyncs, players in the match; "SPECTATING" for a
// spectator's seat, which reads no keys), and while the server
// holds the match for a slow player (its stall policy) a "Waiting for:
// NAME…" line. The desktop window (./window) draws with it; the browser
// page (./page, built for js/wasm and served by `rewind demo`) draws the
// same on a 2-D canvas without Ebitengine, from the frames its Worker
// posts (package tab holds the colours both use).
//
// It lives in a module of its own, beside the engine's, so that the engine
// never imports Ebitengine and never needs cgo: a desktop build of this
// module needs cgo and the X11/GL headers on Linux, the engine does not.
//
// The view draws the predicted world; avatars are drawn between the last
// two ticks at the frame's fraction of a tick, so 60 Hz ticks look smooth
// on a faster screen, and a rollback only changes what the next frame
// draws. Ticks do not come from frames: whoever owns the seat.Player calls its
// Tick.
//
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
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// Scale is how many screen pixels (of the view's layout) a cell takes.
const Scale = 2

// hudHeight is the HUD's height above the grid, in layout pixels.
const hudHeight = 36

// flashFrames is how many frames a pour's flash lasts.
const flashFrames = 12

// Game is the Ebitengine game of a sand seat.Player: it implements
// ebiten.Game. Its Update reads the keyboard and mouse into the player's
// input and takes the effects; its Draw draws the predicted world. Until
// SetPlayer it shows Waiting's text.
type Game struct {
	player atomic.Pointer[seat.Player]
	replay *seat.Replay
	repErr error // the replay's divergence, shown in the HUD
	side   int
	room   string

	// Waiting is the text shown before there is a player ("joining").
	Waiting atomic.Pointer[string]
	// OnFrame, if set, is called at the end of every Draw with the screen
	// (the window's --screenshot uses it).
	OnFrame func(screen *ebiten.Image)
	// Sound, if set, is played when a pour starts (once per pour, however
	// often rollbacks simulate its tick again).
	Sound func()

	grid    *ebiten.Image
	pix     []byte
	fx      []rewind.EffectEvent
	flashes map[uint16]int // player → frames of flash left
	mat     sand.Material  // the material chosen (keys 1–4)
	stop    bool
	graph   tab.NetGraph // the net graph's samples
	graphOn bool         // G shows and hides it
}

// New returns the view of a side×side sand grid (side <= 0: 256).
func New(side int) *Game {
	if side <= 0 {
		side = 256
	}
	return &Game{side: side, flashes: map[uint16]int{}, mat: sand.Sand}
}

// SetPlayer makes g draw and steer p.
func (g *Game) SetPlayer(p *seat.Player) { g.player.Store(p) }

// SetReplay makes g play and draw replay r instead of a player's match
// (the window's --replay): Update steps it by the wall clock at its speed;
// space pauses, the left and right arrows seek seat.SeekStep back and on
// (from the nearest keyframe), up and down double and halve the speed.
func (g *Game) SetReplay(r *seat.Replay) { g.replay = r }

// Stop makes the next Update end Ebitengine's loop (ebiten.Termination).
func (g *Game) Stop() { g.stop = true }

// Layout returns the view's fixed layout: the grid at Scale, the HUD
// above it.
func (g *Game) Layout(int, int) (int, int) {
	return g.side * Scale, g.side*Scale + hudHeight
}

// Update reads the controls: arrows or WASD move, space or the left mouse
// button pours, 1–4 choose the material (empty, sand, water, wall), G
// shows and hides the net graph (ping, ticks rolled back and bytes per
// second over the last 15 s; tab.NetGraph). It
// also takes the pour effects for the flash and the sound.
func (g *Game) Update() error {
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
	if !p.Spectating() { // a spectator's keys steer nothing
		in := readControls(g.mat)
		g.mat = in.Material
		p.SetInput(in)
	}
	g.fx = p.Session().Effects(g.fx[:0])
	for _, e := range g.fx {
		if e.Status == rewind.EffectPredicted && e.Effect.Kind == sand.EffectPour {
			g.flashes[uint16(e.Effect.Args[0])] = flashFrames
			if g.Sound != nil {
				g.Sound()
			}
		}
	}
	return nil
}

// updateReplay takes the replay's keys and steps it to now.
func (g *Game) updateReplay(now time.Time) {
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

// readControls returns the input the keys and mouse give now, with
// material unless another is chosen.
func readControls(material sand.Material) sand.Input {
	in := sand.Input{Material: material}
	key := ebiten.IsKeyPressed
	if key(ebiten.KeyArrowLeft) || key(ebiten.KeyA) {
		in.MoveX--
	}
	if key(ebiten.KeyArrowRight) || key(ebiten.KeyD) {
		in.MoveX++
	}
	if key(ebiten.KeyArrowUp) || key(ebiten.KeyW) {
		in.MoveY--
	}
	if key(ebiten.KeyArrowDown) || key(ebiten.KeyS) {
		in.MoveY++
	}
	in.Pour = key(ebiten.KeySpace) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	for i, k := range [...]ebiten.Key{ebiten.KeyDigit1, ebiten.KeyDigit2, ebiten.KeyDigit3, ebiten.KeyDigit4} {
		if key(k) {
			in.Material = sand.Material(i)
		}
	}
	return in
}

// PlayerColor returns player id's colour (the page's: tab.PlayerRGB).
func PlayerColor(id uint16) color.RGBA {
	c := tab.PlayerRGB(id)
	return color.RGBA{c[0], c[1], c[2], 255}
}

// Draw draws the predicted world: the grid, the avatars between the last
// two ticks, and the HUD.
func (g *Game) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{8, 8, 12, 255})
	if r := g.replay; r != nil {
		rp := r.Player()
		players := g.drawWorld(screen, r.Game(), rp.Previous(), rp.World(), rp.Fraction(), -1)
		g.drawReplayHUD(screen, r, players)
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
	me := -1 // none outlined: a spectator's, or before the welcome
	if id, ok := p.Session().Player(); ok {
		me = int(id)
	}
	var players uint32
	p.Session().ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
		players = g.drawWorld(screen, p.Game(), prev, cur, alpha, me)
	})
	g.drawHUD(screen, p, players)
	if line := p.WaitingFor(); line != "" {
		g.drawWaiting(screen, line)
	}
	st := p.Stats()
	g.graph.Add(float64(time.Now().UnixNano())/1e6, float64(st.Ping)/float64(time.Millisecond), st.RolledBackTicks, st.BytesIn, st.BytesOut)
	if g.graphOn {
		g.drawGraph(screen)
	}
	g.ageFlashes()
	g.frame(screen)
}

// ageFlashes counts the pour flashes' frames down.
func (g *Game) ageFlashes() {
	for id, n := range g.flashes {
		if n <= 1 {
			delete(g.flashes, id)
		} else {
			g.flashes[id] = n - 1
		}
	}
}

// drawWorld draws the grid of cur and its avatars between prev and cur at
// alpha (me's outlined; -1: none) and returns the players in the match.
func (g *Game) drawWorld(screen *ebiten.Image, sg *sand.Game, prev, cur *world.World, alpha float64, me int) uint32 {
	g.drawGrid(screen, sg.Cells(cur))
	before := sg.Avatars(prev)
	for _, a := range sg.Avatars(cur) {
		x, y := float64(a.X), float64(a.Y)
		for _, b := range before {
			if b.Player == a.Player {
				x = float64(b.X) + alpha*(x-float64(b.X))
				y = float64(b.Y) + alpha*(y-float64(b.Y))
				break
			}
		}
		g.drawAvatar(screen, a, x/256, y/256, int(a.Player) == me)
	}
	return sg.State(cur).Players
}

// drawReplayHUD draws a replay's HUD: its name, players, speed, tick and
// the keys.
func (g *Game) drawReplayHUD(screen *ebiten.Image, r *seat.Replay, players uint32) {
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
	line1 := fmt.Sprintf("replay %s  players %d  speed %gx%s", r.Name(), players, rp.Speed(), state)
	line2 := fmt.Sprintf("tick %d / %d  (space pause, left/right seek %v, up/down speed)", rp.Tick(), rp.Last(), seat.SeekStep)
	ebitenutil.DebugPrintAt(screen, line1, 4, 2)
	ebitenutil.DebugPrintAt(screen, line2, 4, 18)
}

func (g *Game) frame(screen *ebiten.Image) {
	if g.OnFrame != nil {
		g.OnFrame(screen)
	}
}

func (g *Game) drawGrid(screen *ebiten.Image, cells []sand.Material) {
	drawCells(g, screen, cells)
}

// drawCells draws a grid of materials (sand.Material or its byte).
func drawCells[M ~uint8](g *Game, screen *ebiten.Image, cells []M) {
	n := g.side
	if g.grid == nil {
		g.grid = ebiten.NewImage(n, n)
		g.pix = make([]byte, 4*n*n)
	}
	for i, c := range cells[:min(len(cells), n*n)] {
		rgb := tab.MaterialRGB[c&3]
		o := 4 * i
		g.pix[o], g.pix[o+1], g.pix[o+2], g.pix[o+3] = rgb[0], rgb[1], rgb[2], 255
	}
	g.grid.WritePixels(g.pix)
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Scale(Scale, Scale)
	op.GeoM.Translate(0, hudHeight)
	screen.DrawImage(g.grid, op)
}

// drawAvatar draws a at cell coordinates (x, y): a square in its player's
// colour (outlined in white for this player's own), its id beside it, and
// a flash ring while a pour has just started.
func (g *Game) drawAvatar(screen *ebiten.Image, a sand.Avatar, x, y float64, own bool) {
	sx, sy := float32(x*Scale), float32(y*Scale+hudHeight)
	c := PlayerColor(a.Player)
	if n := g.flashes[a.Player]; n > 0 {
		r := float32(6 + 2*(flashFrames-n))
		vector.StrokeCircle(screen, sx, sy, r, 2, color.RGBA{c.R, c.G, c.B, uint8(20 * n)}, true)
	}
	vector.DrawFilledRect(screen, sx-5, sy-5, 10, 10, c, false)
	if own {
		vector.StrokeRect(screen, sx-6, sy-6, 12, 12, 1.5, color.White, false)
	}
	ebitenutil.DebugPrintAt(screen, fmt.Sprint(a.Player), int(sx)+7, int(sy)-8)
}

func (g *Game) drawHUD(screen *ebiten.Image, p *seat.Player, players uint32) {
	g.drawHUDLines(screen, seatHUD(p, players))
}

// hud is what the HUD shows.
type hud struct {
	room, id, state     string
	players             uint32
	ping                float64 // ms
	spectating          bool
	delay               time.Duration
	predicted, verified uint32
	rollbacks, resyncs  uint64
}

func (g *Game) drawHUDLines(screen *ebiten.Image, h hud) {
	line1 := fmt.Sprintf("room %s  player %s  players %d  ping %.0f ms  [%s]%s",
		h.room, h.id, h.players, h.ping, tab.MaterialNames[g.mat&3], h.state)
	if h.spectating {
		behind := ""
		if h.delay > 0 {
			behind = fmt.Sprintf(" %v behind", h.delay)
		}
		line1 = fmt.Sprintf("room %s  SPECTATING%s  players %d  ping %.0f ms%s",
			h.room, behind, h.players, h.ping, h.state)
	}
	line2 := fmt.Sprintf("tick %d  verified %d  rollbacks %d  resyncs %d",
		h.predicted, h.verified, h.rollbacks, h.resyncs)
	ebitenutil.DebugPrintAt(screen, line1, 4, 2)
	ebitenutil.DebugPrintAt(screen, line2, 4, 18)
}

// drawGraph draws the net graph (tab.NetGraph; the page draws the same)
// in the grid's top right corner: a strip per figure, its label above its
// line.
func (g *Game) drawGraph(screen *ebiten.Image) { drawNetGraph(screen, &g.graph, g.side*Scale) }

// drawNetGraph draws graph in the top right corner of a view viewWidth
// pixels wide, below the HUD.
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

// drawWaiting draws the stall's "Waiting for: NAME…" line (seat's
// WaitingFor) on a dark band across the top of the grid, while the
// server holds the match: the world stays as it was meanwhile. The debug
// font has ASCII only: the ellipsis is drawn as three dots.
func (g *Game) drawWaiting(screen *ebiten.Image, line string) {
	line = strings.ReplaceAll(line, "…", "...")
	w := float32(g.side * Scale)
	vector.DrawFilledRect(screen, 0, hudHeight+4, w, 24, color.RGBA{0, 0, 0, 200}, false)
	x := max(4, (int(w)-6*utf8.RuneCountInString(line))/2) // the debug font is 6 pixels a glyph
	ebitenutil.DebugPrintAt(screen, line, x, hudHeight+8)
}

// Screenshot returns a copy of screen's pixels.
func Screenshot(screen *ebiten.Image) *image.RGBA {
	b := screen.Bounds()
	img := image.NewRGBA(b)
	screen.ReadPixels(img.Pix)
	return img
}
