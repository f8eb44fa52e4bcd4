package game

// MaxSettingsLen is the most bytes of a game's match settings: they travel
// with every welcome (codec.MaxSettings).
const MaxSettingsLen = 255

// SettingsProvider is implemented by a game whose match settings the host
// chooses before the match starts (the sand game's grid size and tick
// rate, for instance). The server sends MatchSettings to every player with
// its welcome, so that a joiner can play the host's match without being
// told the settings (Configurable).
type SettingsProvider interface {
	// MatchSettings returns the game's settings as the game encodes
	// them (at most MaxSettingsLen bytes). Configurable.WithMatchSettings
	// must read them back into an equal game.
	MatchSettings() []byte
}

// Configurable is implemented by a game that can take the host's match
// settings: a client configured to take them (client.Config.HostSettings)
// builds the game it plays from the welcome's settings with
// WithMatchSettings, and plays that game instead of its own.
type Configurable[I any] interface {
	SettingsProvider
	// WithMatchSettings returns a new game (never registered yet) with
	// the settings b, which come from the network: it must check them and
	// return an error for any it does not accept, never panic.
	WithMatchSettings(b []byte) (Game[I], error)
}

// BaseFingerprint is what a client that takes the host's settings sends
// in its hello instead of the full Fingerprint (it cannot know the world
// layout or tick rate before it has the settings): the input schema's
// fingerprint alone, combined as Fingerprint combines it. The welcome then
// carries the server's full fingerprint, which the client checks against
// the game it built from the settings.
func BaseFingerprint(inputSchema uint64) uint64 { return Fingerprint(inputSchema, 0, 0) }
