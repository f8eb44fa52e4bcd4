// Package coins is the C example module examples/modules/c/coins.c as a
// Go game, rule for rule: the reference the module's server cost is
// measured against (docs/modules.md, docs/benchmarks.md), and a test that
// a module and a Go game can be the same game (examples/modules'
// TestCoinsGoPortAgrees plays both and compares every tick's draw list).
//
// Up to 8 players steer discs around a 320×240 arena, bump into each
// other and collect coins: a coin touched scores 1 and reappears
// elsewhere. Fire dashes, once every half second. Integers only:
// positions are in 1/256 pixel (FX).
//
// The rules, exactly (as coins.c):
//
//  1. Each player slot in order: a join resets the slot to its spawn
//     point (Spawn), at rest, score 0; a slot without a player is off.
//     A player then moves (move): the keys give an axis each (-1, 0, 1);
//     a dash (Fire, a direction held, no cool-down) sets the speed to
//     twice VMax along the axes and the cool-down to Dash ticks; the
//     speed gains Accel per axis and loses a 16th (truncated), clamped
//     to VMax (twice that in the first half of a dash's cool-down); the
//     position moves by the speed and stops at the walls, where the
//     speed reverses at half.
//  2. Every pair of players (i < j) closer than two radii (bump, in
//     1/16-pixel units) is pushed apart along the line between them and
//     swaps speeds.
//  3. Each coin in order: the first player (in slot order) touching it
//     scores and the coin moves to a random place (xorshift32).
package coins

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// The arena and the motion, in 1/256 pixel (as coins.c's enum).
const (
	MaxPlayers = 8
	FX         = 256
	Width      = 320 * FX
	Height     = 240 * FX
	Radius     = 8 * FX
	CoinRadius = 4 * FX
	Coins      = 5
	Accel      = 48
	VMax       = 3 * FX
	Dash       = 30
)

// The key bits of Input.Keys (rewind_control's).
const (
	Left  = 1
	Right = 2
	Up    = 4
	Down  = 8
	Fire  = 16
)

// Input is one player's input: the keys held (Left|Right|Up|Down|Fire),
// coins.wasm's one input byte.
type Input struct {
	Keys uint8
}

// Player is one player slot (coins.c's Player).
type Player struct {
	X, Y, VX, VY int32
	Score, On    int32
	Cool, Pad    int32
}

// State is the game's world (coins.c's g): the random generator, the
// tick, the players and the coins.
type State struct {
	Rng, Tick uint32
	P         [MaxPlayers]Player
	CX, CY    [Coins]int32
}

// Game is the coins game. Its handle serves any number of worlds.
type Game struct {
	state world.Value[State]
	// Seed is rewind_init's seed: it places the first coins.
	Seed int64
}

var _ rewind.Game[Input] = (*Game)(nil)

// New returns a coins game seeded with seed (rewind_init(seed)).
func New(seed int64) *Game { return &Game{Seed: seed} }

// Register declares the value "coins".
func (g *Game) Register(s *world.Schema) error {
	g.state = world.AddValue[State](s, "coins")
	return s.Err()
}

// Setup seeds the generator and places the coins (rewind_init).
func (g *Game) Setup(w *world.World) error {
	st := g.state.Ptr(w)
	u := uint64(g.Seed)
	st.Rng = uint32(u ^ u>>32)
	if st.Rng == 0 {
		st.Rng = 0x9E3779B9
	}
	for i := range Coins {
		st.placeCoin(i)
	}
	return nil
}

// State returns the world's state (aliasing it).
func (g *Game) State(w *world.World) *State { return g.state.Ptr(w) }

func (st *State) rnd() uint32 {
	x := st.Rng
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	st.Rng = x
	return x
}

func (st *State) placeCoin(i int) {
	st.CX[i] = int32(st.rnd()%uint32(Width-4*CoinRadius)) + 2*CoinRadius
	st.CY[i] = int32(st.rnd()%uint32(Height-4*CoinRadius)) + 2*CoinRadius
}

// Spawn returns where player p appears: two rows of four.
func Spawn(p int) (x, y int32) {
	return int32(40+80*(p%4)) * FX, int32(60+120*(p/4)) * FX
}

// Step runs one tick (see the package doc for the rules).
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	st := g.state.Ptr(w)
	st.Tick = t.Number
	joined := uint16(0)
	for _, e := range t.Events {
		if e.Kind == rewind.Join {
			joined |= 1 << e.Player
		}
	}
	for i := range MaxPlayers {
		p := &st.P[i]
		present := i < len(t.Present) && t.Present[i]
		switch {
		case present && joined&(1<<i) != 0:
			x, y := Spawn(i)
			*p = Player{X: x, Y: y, On: 1}
		case !present:
			p.On = 0
		}
		if p.On != 0 {
			p.move(t.Inputs[i].Keys)
		}
	}
	for i := range MaxPlayers {
		for j := i + 1; j < MaxPlayers; j++ {
			if st.P[i].On != 0 && st.P[j].On != 0 {
				bump(&st.P[i], &st.P[j])
			}
		}
	}
	for c := range Coins {
		for i := range MaxPlayers {
			p := &st.P[i]
			dx, dy := (p.X-st.CX[c])/16, (p.Y-st.CY[c])/16
			const r = (Radius + CoinRadius) / 16
			if p.On != 0 && dx*dx+dy*dy < r*r {
				p.Score++
				st.placeCoin(c)
				break
			}
		}
	}
}

func bit(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

func clamp(v, lo, hi int32) int32 { return max(lo, min(v, hi)) }

func (p *Player) move(keys uint8) {
	ax := bit(keys&Right != 0) - bit(keys&Left != 0)
	ay := bit(keys&Down != 0) - bit(keys&Up != 0)
	vmax := int32(VMax)
	if p.Cool > Dash/2 {
		vmax = 2 * VMax
	}
	if p.Cool > 0 {
		p.Cool--
	}
	if keys&Fire != 0 && p.Cool == 0 && (ax != 0 || ay != 0) {
		p.VX, p.VY = ax*2*VMax, ay*2*VMax
		p.Cool = Dash
		vmax = 2 * VMax
	}
	p.VX = clamp(p.VX+ax*Accel-p.VX/16, -vmax, vmax)
	p.VY = clamp(p.VY+ay*Accel-p.VY/16, -vmax, vmax)
	p.X += p.VX
	p.Y += p.VY
	if p.X < Radius {
		p.X, p.VX = Radius, -p.VX/2
	}
	if p.X > Width-Radius {
		p.X, p.VX = Width-Radius, -p.VX/2
	}
	if p.Y < Radius {
		p.Y, p.VY = Radius, -p.VY/2
	}
	if p.Y > Height-Radius {
		p.Y, p.VY = Height-Radius, -p.VY/2
	}
}

// bump pushes two overlapping players apart and swaps their speeds.
func bump(a, b *Player) {
	dx, dy := b.X-a.X, b.Y-a.Y
	d2 := (dx/16)*(dx/16) + (dy/16)*(dy/16)
	if d2 >= (2*Radius/16)*(2*Radius/16) {
		return
	}
	d := isqrt(d2) * 16
	if d == 0 {
		dx, dy, d = FX, 0, FX
	}
	push := (2*Radius-d)/2 + 1
	a.X -= dx * push / d
	a.Y -= dy * push / d
	b.X += dx * push / d
	b.Y += dy * push / d
	a.VX, b.VX = b.VX, a.VX
	a.VY, b.VY = b.VY, a.VY
}

// isqrt returns the integer square root of n ≥ 0, rounded down.
func isqrt(n int32) int32 {
	if n < 2 {
		return n
	}
	x := n
	y := (x + 1) / 2
	for y < x {
		x = y
		y = (x + n/x) / 2
	}
	return x
}
