// Package ships is rewind's fast-action game: top-down ships with inertia
// in a walled arena, turning, thrusting and firing shots that fly, hit and
// score. It is written only against rewind's public contract, and its
// physics use package fixed (Q48.16 fixed point: positions, velocities,
// angles, square roots, sines) so that a match's worlds are the same bits
// on amd64, arm64 and in the browser's wasm (its tests prove it over
// 10,000 ticks). With 2 to 8 players at 60 Hz it is where rollback shows:
// a shot fired by a player 80 ms away hits or misses exactly as the
// server decides, and every client's rollback corrects the rest.
//
// The rules, in the order Step applies them each tick:
//
//  1. Events: a join adds the player's ship at its spawn point (Spawn),
//     facing the centre, with full health; a leave removes it (swap-remove;
//     its shots fly on).
//  2. Each ship in table order: a dead ship counts its respawn ticks down
//     and comes back at its spawn point. A live one turns by TurnRate per
//     unit of Input.Turn, accelerates by Thrust along its heading when
//     Input.Thrust is set, loses 1/64 of its velocity to drag, is held
//     under MaxSpeed, moves, and bounces off the arena's walls (the
//     velocity's component into the wall reversed and halved). With
//     Input.Fire set and its cooldown at 0 it fires a shot from its nose,
//     at ShotSpeed plus its own velocity (EffectShot).
//  3. Ships that overlap (circles of ShipRadius) are pushed apart along the
//     line between their centres and exchange their velocities' components
//     along it (an elastic collision of equal masses).
//  4. Each shot moves and ages; one that leaves the arena or reaches
//     ShotLife ticks disappears; one within ShipRadius+ShotRadius of a live
//     ship other than its owner's hits it: the shot disappears, the ship
//     loses ShotDamage health and flashes (EffectHit), and at 0 health it
//     dies (EffectKill): its shooter scores a point, it respawns after
//     RespawnTicks.
package ships

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/fixed"
	"github.com/rewindnet/rewind/world"
)

// The arena and the ships' motion, in world units (a ship is 24 wide) and
// ticks of 1/60 s.
var (
	// HalfArena bounds the arena: positions lie in [-HalfArena, HalfArena]
	// on both axes.
	HalfArena = fixed.FromInt(600)
	// ShipRadius is a ship's collision radius.
	ShipRadius = fixed.FromInt(12)
	// ShotRadius is a shot's collision radius.
	ShotRadius = fixed.FromInt(2)
	// TurnRate is how far a ship turns in a tick (about 4.3°: a turn in
	// 1.4 s).
	TurnRate = fixed.FromFrac(3, 40)
	// Thrust is a ship's acceleration per tick (units per tick per tick).
	Thrust = fixed.FromFrac(1, 8)
	// MaxSpeed bounds a ship's speed (units per tick: 360 per second).
	MaxSpeed = fixed.FromInt(6)
	// ShotSpeed is a shot's speed relative to its ship (600 per second).
	ShotSpeed = fixed.FromInt(10)
)

// Counts of the rules.
const (
	// MaxHealth is a ship's health when it (re)spawns.
	MaxHealth = 100
	// ShotDamage is the health a hit takes.
	ShotDamage = 25
	// ShotLife is how many ticks a shot flies.
	ShotLife = 90
	// Cooldown is the ticks between two shots of a ship.
	Cooldown = 12
	// RespawnTicks is how long a dead ship stays away (2 s).
	RespawnTicks = 120
	// MaxShots is the capacity of the shots table: 8 ships firing every
	// Cooldown ticks keep at most 8·ShotLife/Cooldown in the air.
	MaxShots = 64
)

// Effects Step raises (docs/effects.md). Their Args identify them by
// what happened, never by a position, so that a rollback which moves a
// ship by a unit does not make the same hit a new one.
const (
	// EffectShot: a ship fired. Args: shooter, the tick of the shot.
	EffectShot uint16 = 1
	// EffectHit: a shot hit a ship. Args: target, shooter, the tick the
	// shot was fired.
	EffectHit uint16 = 2
	// EffectKill: a ship died. Args: target, shooter, the tick the
	// killing shot was fired.
	EffectKill uint16 = 3
)

// Input is one player's input in a tick.
type Input struct {
	// Turn turns the ship: -1 clockwise, 1 counterclockwise (Y up).
	Turn int8 `rewind:"min=-1,max=1"`
	// Thrust accelerates it along its heading.
	Thrust bool
	// Fire fires a shot when the cooldown allows.
	Fire bool
}

// Ship is a player's ship (56 bytes, no padding).
type Ship struct {
	// Pos and Vel are the position and velocity (units, units per tick).
	Pos, Vel fixed.Vec
	// Angle is the heading in radians, in (-π, π].
	Angle fixed.Num
	// Score counts the ships this one destroyed; Deaths its deaths.
	Score, Deaths uint16
	// Player is the ship's player.
	Player uint8
	// Health is 0 while the ship is dead.
	Health uint8
	// Cooldown counts the ticks until it may fire again; Respawn the ticks
	// until a dead ship comes back; Flash the ticks its hit flash lasts.
	Cooldown, Respawn, Flash uint8
	_                        [7]byte
}

// Shot is a shot in flight (40 bytes, no padding).
type Shot struct {
	Pos, Vel fixed.Vec
	// Fired is the tick the shot was fired: with Owner, its identity.
	Fired uint32
	// Owner is the player who fired it; Age its ticks in flight.
	Owner, Age uint8
	_          [2]byte
}

// State is the game's single value.
type State struct {
	Tick  uint32
	Ships uint32
	Shots uint32 // fired since the start
	Hits  uint32
	Kills uint32
	_     uint32
}

// Game is the ships game. Its zero value is ready to use; a Game keeps
// only handles, so one value serves any number of worlds.
type Game struct {
	ships world.Table[Ship]
	shots world.Table[Shot]
	state world.Value[State]
}

var _ rewind.Game[Input] = (*Game)(nil)

// New returns a ships game.
func New() *Game { return &Game{} }

// Register declares the tables "ships" (capacity rewind.MaxPlayers) and
// "shots" (MaxShots) and the value "state", in that order.
func (g *Game) Register(s *world.Schema) error {
	g.ships = world.AddTable[Ship](s, "ships", rewind.MaxPlayers)
	g.shots = world.AddTable[Shot](s, "shots", MaxShots)
	g.state = world.AddValue[State](s, "state")
	return s.Err()
}

// Setup leaves the arena empty: ships arrive with their players.
func (g *Game) Setup(*world.World) error { return nil }

// Ships returns the ships (aliasing the world).
func (g *Game) Ships(w *world.World) []Ship { return g.ships.All(w) }

// Shots returns the shots in flight (aliasing the world).
func (g *Game) Shots(w *world.World) []Shot { return g.shots.All(w) }

// State returns the game's state value.
func (g *Game) State(w *world.World) State { return g.state.Get(w) }

// Spawn returns where player p's ship appears and its heading: on a
// circle of radius 2/3 HalfArena around the centre, eight places a turn,
// facing the centre.
func Spawn(p rewind.PlayerID) (pos fixed.Vec, angle fixed.Num) {
	a := fixed.TwoPi.MulInt(int64(p % 8)).Div(fixed.FromInt(8))
	if p >= 8 {
		a = a.Add(fixed.TwoPi.Div(fixed.FromInt(16)))
	}
	pos = fixed.FromAngle(a).Scale(HalfArena.MulInt(2).Div(fixed.FromInt(3)))
	return pos, wrapAngle(a.Add(fixed.Pi))
}

// wrapAngle returns a moved into (-π, π] by whole turns (a is within a
// turn of that range).
func wrapAngle(a fixed.Num) fixed.Num {
	switch {
	case a > fixed.Pi:
		return a.Sub(fixed.TwoPi)
	case a <= -fixed.Pi:
		return a.Add(fixed.TwoPi)
	}
	return a
}

// Step runs one tick (see the package doc for the rules).
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	g.events(w, t)
	ships := g.ships.All(w)
	st := g.state.Ptr(w)
	for i := range ships {
		g.fly(w, t, &ships[i], st)
	}
	collide(ships)
	g.moveShots(w, t, ships, st)
	st.Tick = t.Number
	st.Ships = uint32(len(ships))
}

// events applies the tick's joins and leaves.
func (g *Game) events(w *world.World, t *rewind.Tick[Input]) {
	for _, e := range t.Events {
		switch e.Kind {
		case rewind.Join:
			s := Ship{Player: uint8(e.Player)}
			spawn(&s)
			_, _ = g.ships.Add(w, s)
		case rewind.Leave:
			for i := 0; i < g.ships.Len(w); i++ {
				if g.ships.At(w, i).Player == uint8(e.Player) {
					g.ships.Remove(w, i)
					break
				}
			}
		}
	}
}

// spawn puts s at its spawn point, at rest with full health.
func spawn(s *Ship) {
	s.Pos, s.Angle = Spawn(rewind.PlayerID(s.Player))
	s.Vel = fixed.Vec{}
	s.Health, s.Cooldown, s.Respawn, s.Flash = MaxHealth, 0, 0, 0
}
