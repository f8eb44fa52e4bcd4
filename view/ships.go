package view

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/view/seat"
	"github.com/rewindnet/rewind/view/tab"
	"github.com/rewindnet/rewind/world"
)

// ShipsSide is the ships view's arena side in layout pixels: the arena's
// 1,200 units at tab.ShipsScale.
const ShipsSide = int(tab.ShipsSide)

// Ships is the Ebitengine game of a ships seat (games/ships): the arena,
// the ships in their players' colours between the last two ticks (with
// their heading, health bar and id; this player's ringed in white; a
// hit's flash while the world's Flash lasts), the shots, the scores,
// and the HUD of the sand view. Its Update reads the keyboard into the
// seat's input (left/right or A/D turn, up or W thrusts, space or the
// left mouse button fires; G shows and hides the net graph) and takes
// the hit effects for the sound, once per hit however often a rollback
// simulates it again. Until SetPlayer it shows Waiting's text. The
// browser page draws the same on its canvas (view/page's ships.go).
type Ships struct {
	player atomic.Pointer[seat.Ships]

	// Waiting is the text shown before there is a player ("joining").
	Waiting atomic.Pointer[string]
	// OnFrame, if set, is called at the end of every Draw with the screen.
	OnFrame func(screen *ebiten.Image)
	// Sound, if set, is played when a shot hits a ship.
	Sound func()

	arena   tab.Arena
	fx      []rewind.EffectEvent
	graph   tab.NetGraph
	graphOn bool
	stop    bool
}

// NewShips returns the ships view.
func NewShips() *Ships { return &Ships{} }

// SetPlayer makes g draw and steer p.
func (g *Ships) SetPlayer(p *seat.Ships) { g.player.Store(p) }

// Stop makes the next Update end Ebitengine's loop (ebiten.Termination).
func (g *Ships) Stop() { g.stop = true }

// Layout returns the view's fixed layout: the arena, the HUD above it.
func (g *Ships) Layout(int, int) (int, int) { return ShipsSide, ShipsSide + hudHeight }

// Update reads the controls and takes the hit effects for the sound.
func (g *Ships) Update() error {
	if g.stop {
		return ebiten.Termination
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyG) {
		g.graphOn = !g.graphOn
	}
	p := g.player.Load()
	if p == nil || p.Done() {
		return nil
	}
	if !p.Spectating() {
		p.SetInput(readShipsControls())
	}
	g.fx = p.Session().Effects(g.fx[:0])
	for _, e := range g.fx {
		if e.Status == rewind.EffectPredicted && e.Effect.Kind == ships.EffectHit && g.Sound != nil {
			g.Sound()
		}
	}
	return nil
}

// readShipsControls returns the input the keys and mouse give now.
func readShipsControls() ships.Input {
	var in ships.Input
	key := ebiten.IsKeyPressed
	if key(ebiten.KeyArrowLeft) || key(ebiten.KeyA) {
		in.Turn++ // counterclockwise: Y is up
	}
	if key(ebiten.KeyArrowRight) || key(ebiten.KeyD) {
		in.Turn--
	}
	in.Thrust = key(ebiten.KeyArrowUp) || key(ebiten.KeyW)
	in.Fire = key(ebiten.KeySpace) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	return in
}

// Draw draws the predicted world: the arena, the ships and shots between
// the last two ticks, the scores and the HUD.
func (g *Ships) Draw(screen *ebiten.Image) {
	screen.Fill(color.RGBA{8, 8, 12, 255})
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
	me := int32(-1)
	if id, ok := p.Session().Player(); ok {
		me = int32(id)
	}
	var players uint32
	p.Session().ViewBetween(time.Now(), func(prev, cur *world.World, alpha float64) {
		seat.FillArena(&g.arena, p.Game(), prev, cur)
		drawArena(screen, &g.arena, alpha, me)
		players = p.Game().State(cur).Ships
	})
	drawShipsHUD(screen, seatHUD(p, players), &g.arena, me)
	if line := p.WaitingFor(); line != "" {
		drawWaitingLine(screen, line, ShipsSide)
	}
	st := p.Stats()
	g.graph.Add(float64(time.Now().UnixNano())/1e6, float64(st.Ping)/float64(time.Millisecond), st.RolledBackTicks, st.BytesIn, st.BytesOut)
	if g.graphOn {
		drawNetGraph(screen, &g.graph, ShipsSide)
	}
	g.frame(screen)
}

func (g *Ships) frame(screen *ebiten.Image) {
	if g.OnFrame != nil {
		g.OnFrame(screen)
	}
}

// toScreen returns where the arena's point (x, y) (units, Y up) is on
// the screen.
func toScreen(x, y float64) (float32, float32) {
	px, py := tab.ShipsPixel(x, y, hudHeight)
	return float32(px), float32(py)
}

// drawArena draws the walls, the shots and the ships of a between the
// tick before (alpha 0) and the predicted one (1), me's ringed in white.
func drawArena(screen *ebiten.Image, a *tab.Arena, alpha float64, me int32) {
	vector.StrokeRect(screen, 1, hudHeight+1, tab.ShipsSide-2, tab.ShipsSide-2, 2, color.RGBA{90, 90, 110, 255}, false)
	for _, s := range a.Shots {
		x, y := toScreen(s.At(alpha))
		vector.DrawFilledCircle(screen, x, y, 2, PlayerColor(s.Owner), true)
	}
	for i := range a.Ships {
		drawShip(screen, &a.Ships[i], alpha, int32(a.Ships[i].Player) == me)
	}
}

// drawShip draws s: a disc in its player's colour with its nose along
// its heading, its id and health bar; a white flash ring while a hit's
// Flash lasts; a fading ring where a dead ship's respawn counts down.
func drawShip(screen *ebiten.Image, s *tab.ShipView, alpha float64, own bool) {
	c := PlayerColor(s.Player)
	wx, wy, ang := s.At(alpha)
	x, y := toScreen(wx, wy)
	r := float32(tab.ShipsRadius * tab.ShipsScale * 1.4)
	if s.Health == 0 {
		fade := uint8(2 * min(int(s.Respawn), 100))
		vector.StrokeCircle(screen, x, y, r+float32(tab.ShipsRespawn-int(s.Respawn))/4, 2, color.RGBA{c.R, c.G, c.B, fade}, true)
		return
	}
	nx, ny := float32(math.Cos(ang)), float32(-math.Sin(ang)) // screen Y is down
	vector.DrawFilledCircle(screen, x, y, r, c, true)
	vector.StrokeLine(screen, x, y, x+nx*r*1.8, y+ny*r*1.8, 3, c, true)
	if s.Flash > 0 {
		vector.StrokeCircle(screen, x, y, r+3, 2, color.RGBA{255, 255, 255, uint8(25 * s.Flash)}, true)
	}
	if own {
		vector.StrokeCircle(screen, x, y, r+6, 1.5, color.White, true)
	}
	w := 2 * r
	vector.DrawFilledRect(screen, x-r, y+r+4, w, 3, color.RGBA{60, 20, 20, 255}, false)
	vector.DrawFilledRect(screen, x-r, y+r+4, w*float32(s.Health)/tab.ShipsMaxHealth, 3, color.RGBA{80, 220, 100, 255}, false)
	ebitenutil.DebugPrintAt(screen, fmt.Sprint(s.Player), int(x+r)+4, int(y-r)-12)
}

// seatHUD returns the HUD's figures of a seat with players in its match.
func seatHUD[I comparable, G any](p *seat.Seat[I, G], players uint32) hud {
	st := p.Stats()
	h := hud{room: p.Room(), id: "-", players: players, ping: float64(st.Ping) / float64(time.Millisecond),
		spectating: p.Spectating(), delay: p.Delay(), predicted: st.Predicted, verified: st.Verified,
		rollbacks: st.Rollbacks, resyncs: st.Resyncs}
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

// drawShipsHUD draws the HUD (as the sand view's, with this player's
// health and score in place of the material) and the scores, one line a
// ship, at the arena's bottom left.
func drawShipsHUD(screen *ebiten.Image, h hud, a *tab.Arena, me int32) {
	mine := "-"
	for _, s := range a.Ships {
		if int32(s.Player) == me {
			mine = fmt.Sprintf("health %d score %d", s.Health, s.Score)
		}
	}
	line1 := fmt.Sprintf("room %s  player %s  players %d  ping %.0f ms  [%s]%s", h.room, h.id, h.players, h.ping, mine, h.state)
	if h.spectating {
		behind := ""
		if h.delay > 0 {
			behind = fmt.Sprintf(" %v behind", h.delay)
		}
		line1 = fmt.Sprintf("room %s  SPECTATING%s  players %d  ping %.0f ms%s", h.room, behind, h.players, h.ping, h.state)
	}
	line2 := fmt.Sprintf("tick %d  verified %d  rollbacks %d  resyncs %d", h.predicted, h.verified, h.rollbacks, h.resyncs)
	ebitenutil.DebugPrintAt(screen, line1, 4, 2)
	ebitenutil.DebugPrintAt(screen, line2, 4, 18)
	for i, s := range a.Ships {
		line := fmt.Sprintf("%d: %2d kills %2d deaths", s.Player, s.Score, s.Deaths)
		ebitenutil.DebugPrintAt(screen, line, 8, ShipsSide+hudHeight-22-16*(len(a.Ships)-1-i))
	}
}

// drawWaitingLine draws the stall's "Waiting for: NAME…" line on a dark
// band across the top of a view width pixels wide (the debug font has
// ASCII only: the ellipsis becomes three dots).
func drawWaitingLine(screen *ebiten.Image, line string, width int) {
	line = strings.ReplaceAll(line, "…", "...")
	vector.DrawFilledRect(screen, 0, hudHeight+4, float32(width), 24, color.RGBA{0, 0, 0, 200}, false)
	x := max(4, (width-6*utf8.RuneCountInString(line))/2)
	ebitenutil.DebugPrintAt(screen, line, x, hudHeight+8)
}
