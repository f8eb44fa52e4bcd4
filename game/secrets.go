package game

import "github.com/rewindnet/rewind/world"

// SecretSetup is implemented by a game with state no player may know in
// advance: a deck's order, the seed of a generator that decides loot.
// Setup runs on every machine, so whatever it writes every player knows;
// the server alone calls SetupSecrets, right after Setup, with 32 bytes
// of secret randomness (server.Config.Secret, else crypto/rand), and the
// game writes what follows from them into a server-only scene
// (world.SceneServer), typically by seeding a generator registered there
// (world.RNG.SeedBytes). Clients hold zeros there; Step running on a
// client reads them and mispredicts, and the server's world corrects it
// (docs/scenes.md).
type SecretSetup interface {
	SetupSecrets(w *world.World, secret [32]byte)
}
