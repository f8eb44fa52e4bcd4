package game

// ModuleSource is implemented by a game whose code travels with its
// match: a WebAssembly game (package module), whose bytes every player
// needs and only the host may have. The server answers a player's
// codec.ModuleRequest with pieces of ModuleBytes; the game's match
// settings name the bytes by their SHA-256 (ModuleTaker.NeedModule reads
// it there).
type ModuleSource interface {
	// ModuleBytes returns the module's bytes (the caller must not change
	// them).
	ModuleBytes() []byte
}

// ModuleTaker is implemented by a Configurable game that can build the
// game of the host's settings only with the host's module, which it may
// not have yet: a client that takes the host's settings asks NeedModule
// at the welcome and, when the module is needed, fetches it from the
// server (codec.ModuleRequest, codec.ModuleChunk), checks its SHA-256
// and gives it to TakeModule before WithMatchSettings.
type ModuleTaker interface {
	// NeedModule returns the SHA-256 of the module the settings b name,
	// the most bytes the game takes of a module, and whether it needs
	// the module's bytes (false: it has them, or b names none and
	// WithMatchSettings says what is wrong). b comes from the network.
	NeedModule(b []byte) (sum [32]byte, maxBytes int, need bool)
	// TakeModule gives the game a module's bytes, whose SHA-256 the
	// client checked against NeedModule's: an error (a module that does
	// not load) refuses the match.
	TakeModule(b []byte) error
}
