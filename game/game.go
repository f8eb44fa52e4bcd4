// Package game is the contract a rewind game implements, kept low in the
// import graph so that the server, the client and the root package rewind
// all use the same one.
//
// A game declares its state as tables, values and grids of a world.Schema
// (Register), fills the world at match start (Setup), and advances it one
// tick given every player's input and the tick's join/leave events (Step).
// Game code never sees sockets, clocks or snapshots: the engine calls Step
// once per tick on the server, and on every client once per predicted tick
// and again for every tick a rollback takes back, so Step must depend on
// nothing but the world and the Tick it is given.
//
// Ticks are numbered from 1: the world "at tick 0" is the world Setup made,
// and Step with Tick.Number t turns the world at tick t-1 into the world at
// tick t.
package game

import (
	"fmt"

	"github.com/rewindnet/rewind/world"
)

// PlayerID identifies a player in a match, from 0 to MaxPlayers-1. The
// server assigns it from the player's connection; a client never chooses it.
type PlayerID uint8

// MaxPlayers is the largest number of players a match can hold (the wire's
// player ids are 6 bits: codec.MaxPlayers).
const MaxPlayers = 64

// EventKind says what happened to a player in a tick.
type EventKind uint8

const (
	// Join says the player entered the match in this tick (before Step
	// runs: its input in this tick is already its own).
	Join EventKind = 1
	// Leave says the player left the match in this tick; its input reads as
	// the zero value from this tick on.
	Leave EventKind = 2
)

// String returns "join" or "leave".
func (k EventKind) String() string {
	switch k {
	case Join:
		return "join"
	case Leave:
		return "leave"
	}
	return "unknown"
}

// Event is one join or leave in a tick.
type Event struct {
	Kind   EventKind
	Player PlayerID
}

// Tick is everything a game's Step sees besides the world: the tick's
// number, its join/leave events and every player's input. It is owned by
// the engine and reused: Step must not keep it or its slices.
type Tick[I any] struct {
	// Number is the tick being stepped, from 1.
	Number uint32
	// Events are the joins and leaves of this tick, in player order.
	Events []Event
	// Inputs holds one input per player slot, indexed by PlayerID; a slot
	// with no player in it holds the zero value.
	Inputs []I
	// Present says which slots hold a player during this tick (after this
	// tick's events), indexed by PlayerID.
	Present []bool

	fx *[]Effect // where Emit records effects (effects.go); nil: nowhere
}

// Game is the contract a game implements. I is the game's input struct:
// fixed-size fields only (see codec's input schema): int8..int64,
// uint8..uint64, bool, float32, float64; an int, uint or uintptr field is
// refused when the schema is built, since its width follows the platform.
//
// Register is called once per game value: its handles to tables, grids and
// values then serve every world built from that schema (a server's and a
// client's in one process share one schema). Setup is called once per
// world.
type Game[I any] interface {
	// Register declares the world's tables, values and grids in s, keeping
	// the handles Setup and Step use. Every machine must register the same
	// layout.
	Register(s *world.Schema) error
	// Setup fills a freshly registered world with the match's starting
	// state. It must be deterministic.
	Setup(w *world.World) error
	// Step advances the world by one tick. It must be deterministic: the
	// same world and Tick give the same world on every machine.
	Step(w *world.World, t *Tick[I])
}

// TickRater is implemented by a game that wants a tick rate other than
// the default 60 Hz.
type TickRater interface {
	// TickRate returns the game's ticks per second.
	TickRate() int
}

// DefaultTickRate is the tick rate of a game that does not say.
const DefaultTickRate = 60

// Fingerprint combines what two machines must agree on to play one match
// (the input schema's fingerprint, the world layout's hash and the tick
// rate) into the game compatibility fingerprint a hello carries.
func Fingerprint(inputSchema, worldLayout uint64, tickRate int) uint64 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, v := range [3]uint64{inputSchema, worldLayout, uint64(tickRate)} {
		h ^= v
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return h
}

// RateOf returns g's tick rate: its TickRate if it has one in 1..1000,
// else DefaultTickRate.
func RateOf(g any) int {
	if tr, ok := g.(TickRater); ok {
		if r := tr.TickRate(); r > 0 && r <= 1000 {
			return r
		}
	}
	return DefaultTickRate
}

// NewWorld makes g's world: on schema, or when schema is nil on a new
// schema that g registers its tables in, and set up by g's Setup. It
// returns the schema used with the world.
func NewWorld[I any](g Game[I], schema *world.Schema) (*world.Schema, *world.World, error) {
	if schema == nil {
		schema = world.NewSchema()
		if err := g.Register(schema); err != nil {
			return nil, nil, fmt.Errorf("register: %w", err)
		}
	}
	w, err := world.New(schema)
	if err != nil {
		return nil, nil, fmt.Errorf("world: %w", err)
	}
	if err := g.Setup(w); err != nil {
		return nil, nil, fmt.Errorf("setup: %w", err)
	}
	return schema, w, nil
}

// StepFailer is implemented by a game whose Step can fail: a WebAssembly
// module (package module) that traps or runs past its time budget. After
// each Step the engine asks StepErr about the world it stepped; an error
// ends the match after that tick: the server ends it (server.Failure
// names the error, naming the module and the tick), a client's Update
// returns it. A game that never fails need not implement it.
type StepFailer interface {
	// StepErr returns the error that stopped w's steps, or nil.
	StepErr(w *world.World) error
}

// Namer is a game that says its name: the registry's games (package
// games) say the name they registered. A server that refuses a player
// of another game (codec.ReasonGame) tells it this name, so that the
// player can say which game the match plays. A game need not implement
// it.
type Namer interface {
	// GameName returns the game's name, e.g. "ships".
	GameName() string
}
