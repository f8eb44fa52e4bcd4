// Package rewind is the face of the rewind netcode engine: what a game
// imports. A game implements Game (register its world, set it up, step it
// one tick given every player's input and the tick's joins and leaves) and
// plays it through a Session: single-player (a server and a client in one
// process over an in-process loopback: the same code path as online) or as
// a client of a server reached through any transport.Conn. Online, a Host
// serves matches over any server-side Conn: UDP (HostUDP; players
// ConnectUDP), or a room of a rooms relay (package rooms: rooms.Host,
// optionally with UDP too; players rooms.Join by the room code, over WebRTC
// data channels; see docs/rooms.md). This package links neither WebRTC
// nor WebSocket: only package rooms does.
//
// A game needs no other package of the engine than this one and world:
// its settings (Options, ServerConfig, ClientConfig, UDPConfig, with
// Options.OnUpdate as a status and stop hook), its counters (Stats, State,
// ServerStats) and the errors to test with errors.Is (ErrRefused,
// ErrTimeout, ErrKicked, ErrHandshake, ErrConnRefused, …) have names here
// (Example_face). Its view draws with Session.View or ViewBetween from
// copies of the predicted world and of the tick before it, made after each
// tick: drawing never waits for Run, nor Run for drawing. Replays are
// package replay's: a replay.Recorder set as ServerConfig.Record records
// a match, replay.Verify checks a replay and replay.Load plays one back.
//
// Under the Session: package server runs the authoritative match, package
// client predicts, rolls back and verifies, package world holds the state
// as plain bytes and package codec puts everything on the wire. See
// docs/networking.md for how a match works.
package rewind

import (
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
)

// Game is the contract a game implements; see package game.
type Game[I any] = game.Game[I]

// Tick is what a game's Step sees besides the world: the tick number, its
// joins and leaves, and every player's input.
type Tick[I any] = game.Tick[I]

// Event is a join or a leave.
type Event = game.Event

// EventKind says whether an Event is a join or a leave.
type EventKind = game.EventKind

// PlayerID identifies a player in a match.
type PlayerID = game.PlayerID

// Event kinds.
const (
	// Join: the player enters the match in this tick.
	Join = game.Join
	// Leave: the player leaves the match in this tick.
	Leave = game.Leave
)

// MaxPlayers is the largest number of players a match can hold.
const MaxPlayers = game.MaxPlayers

// DefaultTickRate is the tick rate of a game that does not implement
// TickRater: 60 ticks a second.
const DefaultTickRate = game.DefaultTickRate

// TickRater is implemented by a game that wants a tick rate other than 60 Hz.
type TickRater = game.TickRater

// SettingsProvider is implemented by a game whose match settings the host
// chooses (a grid size, a tick rate): they go to every joiner with the
// welcome (see game.SettingsProvider).
type SettingsProvider = game.SettingsProvider

// Configurable is implemented by a game that can play the host's match
// settings: a session with ClientConfig.HostSettings builds its game from
// the welcome's settings with WithMatchSettings (see game.Configurable).
type Configurable[I any] = game.Configurable[I]

// View is what a game's view draws from: the last two worlds, the
// fraction of the way between them, the viewer and the canvas (see
// game.View and package draw).
type View = game.View

// SyncTest runs a game alone and rolls back and resimulates every tick,
// comparing hashes, to catch non-determinism before it desyncs a match
// (see client.SyncTest).
type SyncTest[I any] = client.SyncTest[I]

// NewSyncTest sets up a sync test of g for players players, rolling back
// check ticks after every tick.
func NewSyncTest[I any](g Game[I], players, check int) (*SyncTest[I], error) {
	return client.NewSyncTest(g, players, check)
}
