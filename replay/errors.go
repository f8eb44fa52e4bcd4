package replay

import "errors"

// The errors a replay's user tests for with errors.Is.
var (
	// ErrGame indicates a replay recorded with another game (its
	// fingerprint or input size differs from the game's).
	ErrGame = errors.New("rewind: replay of another game")
	// ErrPartial indicates a player's replay of a game with private
	// scenes: it holds only what that player saw, so it cannot be
	// simulated again (a server's replay holds everything: verify that).
	ErrPartial = errors.New("rewind: a player's replay of a game with private scenes cannot be simulated again")
	// ErrSeek indicates a seek (Player.Seek) to a tick the replay does
	// not hold: before its first world or past its last tick.
	ErrSeek = errors.New("rewind: seek outside the replay")
	// ErrDiverged indicates a replay whose world, simulated again by
	// Player, hashed otherwise than recorded (or a keyframe whose world is
	// not the recorded tick's).
	ErrDiverged = errors.New("rewind: replay diverged from its recorded hashes")
)
