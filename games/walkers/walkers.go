// Package walkers is rewind's example of a game whose input is a
// destination, like the "JSON protocol v2" lockstep games it speaks to
// through package gateway: every player has a walker on a square field of
// ±50 m, and walks it toward the last destination it gave at a fixed speed
// in whole centimetres per tick, blocked by the other walkers. It is
// written only against rewind's public contract, with integers only, and
// small enough to be simulated again in another language: the reference
// client in js/ does exactly that and checks every tick's world hash.
//
// The rules, exactly (the JavaScript client implements the same):
//
//  1. Events, in order: a join appends a walker for the player at its
//     spawn point (Spawn), standing (destination = position); a leave
//     removes the player's walker by swap-remove (the table's last record
//     moves into its slot).
//  2. Then each walker in table order, with its player's input: if Move
//     is set, the destination becomes (X, Y). Then, if it is not at its
//     destination, it steps toward it: with (dx, dy) the vector to the
//     destination and d = isqrt(dx²+dy²) (the integer square root,
//     rounded down), the step ends at the destination when d ≤ Speed,
//     else at (x + dx·Speed/d, y + dy·Speed/d), divisions truncated
//     toward zero. The step is not taken if it would end closer than
//     2·Radius to another walker (at that walker's position now, in
//     table order, already moved or not) and closer to it than before
//     the step; then the walker counts as blocked this tick.
//  3. State.Tick becomes the tick's number; State.Walkers the walkers'
//     count; State.Blocked grows by the walkers blocked.
package walkers

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// The field and the walkers' motion, in centimetres.
const (
	// HalfField bounds the field: positions and destinations lie in
	// [-HalfField, HalfField] on both axes (±50 m).
	HalfField = 5000
	// Speed is how far a walker moves in one tick (5 cm: 3 m/s at 60 Hz).
	Speed = 5
	// Radius is a walker's radius: two walkers' centres stay 2·Radius apart
	// unless they started closer.
	Radius = 30
)

// Input is one player's input: a destination. Move false keeps the last
// destination (the input of a player who has sent nothing yet).
type Input struct {
	// X and Y are the destination in centimetres.
	X int32 `rewind:"min=-5000,max=5000"`
	Y int32 `rewind:"min=-5000,max=5000"`
	// Move sets the destination to (X, Y).
	Move bool
}

// Walker is one player's walker (20 bytes, no padding).
type Walker struct {
	// X and Y are the position, TX and TY the destination, in centimetres.
	X, Y, TX, TY int32
	// Player is the walker's player; Blocked is 1 when its last step was
	// blocked by another walker.
	Player  uint8
	Blocked uint8
	_       [2]byte
}

// State is the game's single value.
type State struct {
	Tick    uint32
	Walkers uint32
	Blocked uint64
}

// Game is the walkers game. Its zero value is ready to use; a Game keeps
// only handles, so one value serves any number of worlds.
type Game struct {
	walkers world.Table[Walker]
	state   world.Value[State]
}

var _ rewind.Game[Input] = (*Game)(nil)

// New returns a walkers game.
func New() *Game { return &Game{} }

// Register declares the table "walkers" (capacity rewind.MaxPlayers) and
// the value "state", in that order.
func (g *Game) Register(s *world.Schema) error {
	g.walkers = world.AddTable[Walker](s, "walkers", rewind.MaxPlayers)
	g.state = world.AddValue[State](s, "state")
	return s.Err()
}

// Setup leaves the world empty: walkers arrive with their players.
func (g *Game) Setup(*world.World) error { return nil }

// Walkers returns the walkers (aliasing the world).
func (g *Game) Walkers(w *world.World) []Walker { return g.walkers.All(w) }

// State returns the game's state value.
func (g *Game) State(w *world.World) State { return g.state.Get(w) }

// Spawn returns where player p's walker appears: on an 8×8 grid of points
// 2 m apart around the centre.
func Spawn(p rewind.PlayerID) (x, y int32) {
	return int32(p%8)*200 - 700, int32(p/8)*200 - 700
}

// Step runs one tick (see the package doc for the rules).
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	for _, e := range t.Events {
		switch e.Kind {
		case rewind.Join:
			x, y := Spawn(e.Player)
			_, _ = g.walkers.Add(w, Walker{X: x, Y: y, TX: x, TY: y, Player: uint8(e.Player)})
		case rewind.Leave:
			for i := 0; i < g.walkers.Len(w); i++ {
				if g.walkers.At(w, i).Player == uint8(e.Player) {
					g.walkers.Remove(w, i)
					break
				}
			}
		}
	}
	all := g.walkers.All(w)
	st := g.state.Ptr(w)
	for i := range all {
		a := &all[i]
		if in := t.Inputs[a.Player]; in.Move {
			a.TX, a.TY = in.X, in.Y
		}
		a.Blocked = 0
		if a.X == a.TX && a.Y == a.TY {
			continue
		}
		nx, ny := stepToward(a.X, a.Y, a.TX, a.TY)
		if blocked(all, i, nx, ny) {
			a.Blocked = 1
			st.Blocked++
			continue
		}
		a.X, a.Y = nx, ny
	}
	st.Tick = t.Number
	st.Walkers = uint32(len(all))
}

// stepToward returns where a walker at (x, y) heading for (tx, ty) ends
// this tick.
func stepToward(x, y, tx, ty int32) (int32, int32) {
	dx, dy := int64(tx-x), int64(ty-y)
	d := isqrt(dx*dx + dy*dy)
	if d <= Speed {
		return tx, ty
	}
	return x + int32(dx*Speed/d), y + int32(dy*Speed/d)
}

// blocked reports whether walker i's step to (nx, ny) ends closer than
// 2·Radius to another walker and closer to it than it is now.
func blocked(all []Walker, i int, nx, ny int32) bool {
	const minD2 = (2 * Radius) * (2 * Radius)
	a := &all[i]
	for j := range all {
		if j == i {
			continue
		}
		o := &all[j]
		after := dist2(nx, ny, o.X, o.Y)
		if after < minD2 && after < dist2(a.X, a.Y, o.X, o.Y) {
			return true
		}
	}
	return false
}

func dist2(x0, y0, x1, y1 int32) int64 {
	dx, dy := int64(x1-x0), int64(y1-y0)
	return dx*dx + dy*dy
}

// isqrt returns the integer square root of n ≥ 0, rounded down (Newton's
// method on integers: exact, the same on every machine).
func isqrt(n int64) int64 {
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

// Bot returns a scripted destination for player p at tick t: a new point
// of the field every 90 ticks, from a hash of the player and the period.
func Bot(p rewind.PlayerID, t uint32) Input {
	h := (t/90 + uint32(p)*7919) * 2654435761
	h ^= h >> 15
	h *= 2246822519
	h ^= h >> 13
	return Input{
		X:    int32(h%2001) - 1000,
		Y:    int32((h>>11)%2001) - 1000,
		Move: true,
	}
}

// Rated is a walkers game at another tick rate than rewind's default.
type Rated struct {
	*Game
	// Rate is the tick rate in ticks per second.
	Rate int
}

// TickRate implements rewind's TickRater.
func (r Rated) TickRate() int { return r.Rate }
