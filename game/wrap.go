package game

// Wrapper is implemented by a game that wraps another (the games
// registry's games, whose Go input is the packed form of the game's own):
// the engine looks through it for the optional interfaces a game may
// implement (SettingsProvider, Messenger, SecretSetup) with As.
type Wrapper interface {
	// Unwrap returns the wrapped game.
	Unwrap() any
}

// As returns g as a T: g itself if it is one, else the first game a chain
// of Wrappers under g leads to that is one.
func As[T any](g any) (T, bool) {
	for range 16 { // a chain of wrappers is short: stop on a cycle
		if t, ok := g.(T); ok {
			return t, true
		}
		w, ok := g.(Wrapper)
		if !ok {
			break
		}
		g = w.Unwrap()
	}
	var zero T
	return zero, false
}

// ForwardEffects makes dst's Emit record where src's does: for a wrapper
// that steps the game it wraps with a Tick of another input type.
func ForwardEffects[I, J any](dst *Tick[J], src *Tick[I]) { dst.fx = src.fx }
