package module

import (
	"encoding/binary"
	"fmt"

	"github.com/rewindnet/rewind/game"
)

// settingsLen is the length of a module game's match settings.
const settingsLen = 32 + 8

// MatchSettings returns what a welcome carries of the game: the module's
// SHA-256 (32 bytes) then the seed (8 bytes, little-endian), so that a
// player checks it plays the host's module (or fetches it: Remote) and
// starts from its seed (game.Configurable).
func (g *Game) MatchSettings() []byte {
	b := append(make([]byte, 0, settingsLen), g.m.hash[:]...)
	return binary.LittleEndian.AppendUint64(b, g.seed)
}

// WithMatchSettings returns the game of the host's settings
// (MatchSettings): this module with the host's seed, or ErrHash when the
// host plays another module.
func (g *Game) WithMatchSettings(b []byte) (game.Game[Input], error) {
	sum, seed, err := parseSettings(b)
	if err != nil {
		return nil, err
	}
	if sum != g.m.hash {
		return nil, fmt.Errorf("%w: the host plays module %x, this is %s (%x)", ErrHash, sum[:8], g.m.name, g.m.hash[:8])
	}
	return g.m.Game(seed), nil
}

// ModuleBytes returns the module's bytes, which the server sends to the
// players that lack them (game.ModuleSource).
func (g *Game) ModuleBytes() []byte { return g.m.raw }

// parseSettings reads a module game's match settings.
func parseSettings(b []byte) (sum [32]byte, seed uint64, err error) {
	if len(b) != settingsLen {
		return sum, 0, fmt.Errorf("%w: match settings of %d bytes, want %d", ErrFormat, len(b), settingsLen)
	}
	return [32]byte(b[:32]), binary.LittleEndian.Uint64(b[32:]), nil
}
