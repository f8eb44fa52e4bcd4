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

// MessageSpec describes one of a game's typed match messages: its type
// id (the game's numbering, 0..255) and the exact size of its payload in
// bytes (1..MaxMessageSize).
type MessageSpec struct {
	ID   uint8
	Size int
}

// MaxMessageSize is the most bytes of a typed match message's payload
// (the wire's 255 bytes of a match message, less the type id).
const MaxMessageSize = 254

// Messenger is implemented by a game that registers its own typed match
// messages: the server relays only messages of these types, each of its
// exact size, and refuses others with a reason (a game without Messenger
// gets any type relayed). The messages never reach Step: the game's
// program sends and reads them beside the match (rewind.MessageType).
type Messenger interface {
	// MatchMessages returns the game's message types.
	MatchMessages() []MessageSpec
}
