package draw

// Keys are the buttons of the engine's control state, one bit each, as
// a WebAssembly module's rewind_control receives them (docs/modules.md).
type Keys uint32

// The keys: arrows or WASD, fire (space or the primary pointer button),
// alt (shift or the secondary button), the keys 1–4 and the pointer's
// button (or a touch) held down.
const (
	Left Keys = 1 << iota
	Right
	Up
	Down
	Fire
	Alt
	Key1
	Key2
	Key3
	Key4
	PointerDown
)

// AllKeys are the bits Keys defines; others are ignored.
const AllKeys = Left | Right | Up | Down | Fire | Alt | Key1 | Key2 | Key3 | Key4 | PointerDown

// Controls is the engine's control state at one instant, the same for
// every game: the page, the window and a spectator (whose Controls are
// zero) read it the same way, and each game has one function that maps
// it to its input. X and Y are the pointer's position in the game's
// canvas pixels (0, 0 at its top left, as the draw list's), Width and
// Height the canvas the game was drawn on.
type Controls struct {
	Keys          Keys
	X, Y          int32
	Width, Height int32
}

// Has says whether every key of k is down.
func (c Controls) Has(k Keys) bool { return c.Keys&k == k }

// Axis returns -1, 0 or 1: neg's key down gives -1, pos's 1, both or
// neither 0 (Axis(Left, Right) is a move along X).
func (c Controls) Axis(neg, pos Keys) int8 {
	var v int8
	if c.Keys&neg != 0 {
		v--
	}
	if c.Keys&pos != 0 {
		v++
	}
	return v
}

// Number returns 1–4 for the highest of the keys 1–4 that is down, or 0
// for none.
func (c Controls) Number() int {
	for i := 3; i >= 0; i-- {
		if c.Keys&(Key1<<i) != 0 {
			return i + 1
		}
	}
	return 0
}
