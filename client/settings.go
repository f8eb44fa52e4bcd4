package client

import (
	"fmt"
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// checkHostSettings checks, at New, that a client configured to take the
// host's match settings can: its game builds itself from settings, and
// nothing fixes its world before the welcome.
func checkHostSettings[I any](g game.Game[I], cfg *Config) error {
	if !cfg.HostSettings {
		return nil
	}
	if _, ok := g.(game.Configurable[I]); !ok {
		return fmt.Errorf("client: HostSettings with a game that is not game.Configurable: %w", ErrConfig)
	}
	if cfg.Schema != nil || cfg.Resume != nil {
		return fmt.Errorf("client: HostSettings with a Schema or Resume (the world comes from the host's settings): %w", ErrConfig)
	}
	return nil
}

// takeSettings makes the client play the game the welcome's settings
// describe: the game builds itself from them (Configurable), its world is
// set up afresh, and the full fingerprint it gives must be the server's
// (the hello carried only the input schema's). A refusal ends the client.
func (c *Client[I]) takeSettings(m *codec.Welcome) error {
	g, err := c.g.(game.Configurable[I]).WithMatchSettings(m.Settings)
	if err != nil {
		return fmt.Errorf("client: the host's match settings: %v: %w", err, ErrRefused)
	}
	schema, w, err := game.NewWorld(g, nil)
	if err != nil {
		return fmt.Errorf("client: the game of the host's settings: %v: %w", err, ErrRefused)
	}
	rate := game.RateOf(g)
	fp := game.Fingerprint(c.it.Fingerprint(), w.Layout().Hash(), rate)
	if fp != m.Game {
		return fmt.Errorf("client: the game built from the host's settings is not the host's (fingerprint %016x, the host's %016x): %w", fp, m.Game, ErrRefused)
	}
	c.g, c.schema, c.w, c.rate, c.fp = g, schema, w, rate, fp
	c.dt = time.Second / time.Duration(rate)
	c.cfg = c.given.withDefaults(c.dt)
	c.join.setup = world.Snapshot{}
	w.SnapshotInto(&c.join.setup)
	return nil
}

// Game returns the game the client plays: the one it was made with, or,
// with Config.HostSettings, the one built from the host's match settings
// once the welcome came.
func (c *Client[I]) Game() game.Game[I] { return c.g }

// Settings returns the match settings of the server's welcome (nil before
// it, or for a game without settings).
func (c *Client[I]) Settings() []byte { return c.join.settings }
