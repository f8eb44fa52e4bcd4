package rewind

import "github.com/rewindnet/rewind/world"

// LiveWorld returns s's client's live predicted world, for the view
// tests that compare the copies with it in made-up time (on the
// goroutine that calls Update: the world changes inside every Update).
func LiveWorld[I any](s *Session[I]) *world.World { return s.cli.World() }
