package server

import (
	"time"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

// Config holds a server's settings. The zero value of every field means its
// default.
type Config struct {
	// MaxPlayers is how many players the match holds (default 16, at most
	// game.MaxPlayers).
	MaxPlayers int
	// StartPlayers is how many players must be in (welcomed, and heard
	// from since) before the first tick runs (default 1). Players who
	// arrive later get the world at the tick of their welcome (a world
	// transfer: see docs/networking.md) and every tick since.
	StartPlayers int
	// MaxTicks, if not zero, ends the match after this tick: the server
	// stops ticking and only sends the players the ticks they lack.
	MaxTicks uint32
	// History is how long the server keeps ticks to send again (default 4 s).
	History time.Duration
	// InputWindow is how far ahead of the server's tick a player's inputs
	// are accepted (default 1 s, the clients' prediction window).
	InputWindow time.Duration
	// PlayerTimeout drops a player not heard from for this long (default 5 s).
	PlayerTimeout time.Duration
	// MarginWindow is how many of a player's most recent ticks its margin
	// report covers (default 20).
	MarginWindow int
	// HashBits is how many low bits of each tick's world hash go to the
	// clients (default 8: a desync persists, so it shows within a tick or
	// two with odds of missing it of 2^-8 per tick and 2^-32 over four; see
	// docs/networking.md and docs/wire.md); ScenesHashBits (32) for a
	// world with private scenes (docs/scenes.md).
	HashBits int
	// Redundancy is how many unacknowledged ticks before the fresh one
	// ride along in every datagram (default 1; negative: none), so that a
	// single lost datagram costs no round trip.
	Redundancy int
	// Resend holds the timers of the resending of ticks. Its Selective
	// field is ignored: ResendAll decides.
	Resend reliable.ResendConfig
	// ResendAll makes every datagram carry every tick the player has not
	// acknowledged (codec's default policy). By default the server is
	// selective: a tick goes again when the player's acks show it lost
	// (then with every datagram until acknowledged) or after a timeout,
	// and Redundancy ticks ride along with each fresh one. At 50 ms
	// one-way latency selective costs half the bytes for the same
	// rollbacks; docs/benchmarks.md has the figures.
	ResendAll bool
	// SilentResend is how often a player not heard from lately is sent
	// ticks (default 100 ms), instead of every tick.
	SilentResend time.Duration
	// Checkpoint is how often the server snapshots its world (default
	// 250 ms). The world at any tick within the history is the last
	// checkpoint before it plus the kept ticks replayed: that is what
	// page hashes and pages are served from for a repair or a world
	// transfer.
	Checkpoint time.Duration
	// MaxPlayersPerIP, if positive, caps the players of the match whose
	// Addr names one IP address (transport addresses "udp:IP:PORT#N",
	// also inside a MultiConn's "N/…"); more from it are refused "match
	// full". Zero means no cap (the default: players behind one NAT, and
	// every loopback test, share an address). Addresses without an IP
	// (WebRTC peers, the simulator) are never capped.
	MaxPlayersPerIP int
	// RejoinWindow is how long a player's id and cookie stay reserved
	// after it left, for it to rejoin with its cookie (default 5 min).
	RejoinWindow time.Duration
	// ChunkWindow is how many chunks of a world transfer may be in flight
	// unacknowledged (default 64, at most 64: the client's ack covers
	// 64 chunks past its first missing one).
	ChunkWindow int
	// ChunksPerUpdate is how many new chunks one Update sends at most to
	// one player (default 16), pacing a large world.
	ChunksPerUpdate int
	// FetchInterval and FetchBurst limit the requests of one player
	// (or spectator) for page hashes, and apart for pages, that the
	// server serves: FetchBurst at once, then one per FetchInterval
	// (default 4 and 100 ms: a repair asks once or twice, and again
	// after twice the round trip at the soonest; issue 43: each request
	// for a past tick may cost a replay and an encoding); the rest are
	// ignored (Stats.FetchesLimited).
	FetchInterval time.Duration
	FetchBurst    int
	// WelcomeResend is how often a welcome that rebased a player (a
	// player that fell behind) is sent again until the player acknowledges
	// a tick after it (default 250 ms).
	WelcomeResend time.Duration
	// HostMigration, if set, makes the server send every player the
	// match's handover data (codec.Handover: Room, the players and the
	// digests of their cookies, the tick rate), with every round of ticks
	// for a second after it changes and once a second otherwise, so that
	// a player can host the match if this server goes (docs/rooms.md,
	// "Host migration"). Off by default.
	HostMigration bool
	// Room is the room the match is hosted in, for the handover data
	// (HostMigration).
	Room Room
	// Resume, if set, starts the server from a match another server ran
	// (host migration: resume.go) instead of from the world Setup makes.
	Resume *Resume
	// ChatMaxLen is the most bytes of a chat line (default 200, at most
	// codec.MaxChatText); ChatRate and ChatBurst limit each player's
	// lines: ChatRate a second on average (default 2), ChatBurst at once
	// (default 5). Lines past them are refused with a reason.
	ChatMaxLen int
	ChatRate   float64
	ChatBurst  int
	// ChatBacklog is how many of the latest chat lines (and the host's
	// announcements and game messages) a newcomer is sent when it joins,
	// after the names and ready flags given so far and before the lines
	// said after (default 32; negative: none), so that a line said just
	// before a player's arrival is not lost to it.
	ChatBacklog int
	// MessageRate and MessageBurst limit each player's typed game
	// messages (codec.ChatGame; game.Messenger) apart from its chat
	// lines: MessageRate a second on average (default 20), MessageBurst
	// at once (default 40). Messages past them are refused with a reason.
	MessageRate  float64
	MessageBurst int
	// Stall is the stall policy (stall.go; default StallNever: a late
	// input keeps the player's last one and the match never waits).
	Stall Stall
	// OnWaiting, if set, is called whenever the set of players the match
	// is held for changes (players: bit p for player p; 0 when the hold
	// ends), with the last tick run. It runs inside Update.
	OnWaiting func(now time.Time, tick uint32, players uint64)
	// Schema, if not nil, is a schema the game has already registered into
	// (a server and a client in one process share it); otherwise New calls
	// the game's Register with a fresh schema.
	Schema *world.Schema
	// OnTick, if set, is called after every tick with the tick number, the
	// world and its full hash. It must not keep or change the world.
	OnTick func(tick uint32, w *world.World, hash uint64)
	// Secret is the 32 bytes of secret randomness given to a game that
	// implements game.SecretSetup (docs/scenes.md); zero (the default):
	// read from crypto/rand when the server is made. Tests set it to
	// play the same match twice.
	Secret [32]byte
	// Linger is how long a match that ended (End) goes on sending its
	// players and spectators the ticks they lack, resent as during play,
	// before it says goodbye to those that have not acknowledged its
	// last tick (default 3 s; negative: none, the goodbye goes at the
	// next Update). A delayed spectator gets its delay on top.
	Linger time.Duration
	// MaxSpectators is how many spectators the match takes (default 64;
	// negative: none). Spectators do not count against MaxPlayers.
	MaxSpectators int
	// Record, if set, records the match for a replay (record.go): its
	// start before the first tick, then every tick (replay.Recorder writes
	// a replay file). It runs inside Update.
	Record replay.Sink
	// NewRecorder, if set, is called once by every server made with this
	// config (a host making a match each) for the recorder of its match;
	// it takes the place of Record.
	NewRecorder func() replay.Sink
	// TickOrigin, if set, places a match's ticks: when the match starts
	// at now, tick 0's time is TickOrigin(now) instead of now (tick n
	// is due n tick periods after it). It should return a time in
	// (now − one tick period, now]; one outside is taken as now. A
	// host.Multi sets it so that its rooms' ticks fall on a few instants
	// a tick that they share (host.Options.TickPhases).
	TickOrigin func(now time.Time) time.Time
}

func (c Config) withDefaults() Config {
	if c.MaxPlayers <= 0 {
		c.MaxPlayers = 16
	}
	c.MaxPlayers = min(c.MaxPlayers, game.MaxPlayers, codec.MaxPlayers)
	if c.StartPlayers <= 0 {
		c.StartPlayers = 1
	}
	c.StartPlayers = min(c.StartPlayers, c.MaxPlayers)
	if c.History <= 0 {
		c.History = 4 * time.Second
	}
	if c.InputWindow <= 0 {
		c.InputWindow = time.Second
	}
	switch {
	case c.Linger == 0:
		c.Linger = 3 * time.Second
	case c.Linger < 0:
		c.Linger = 0
	}
	if c.MaxSpectators == 0 {
		c.MaxSpectators = 64
	}
	if c.PlayerTimeout <= 0 {
		c.PlayerTimeout = 5 * time.Second
	}
	if c.MarginWindow <= 0 {
		c.MarginWindow = 20
	}
	if c.SilentResend <= 0 {
		c.SilentResend = 100 * time.Millisecond
	}
	if c.Checkpoint <= 0 {
		c.Checkpoint = 250 * time.Millisecond
	}
	if c.RejoinWindow <= 0 {
		c.RejoinWindow = 5 * time.Minute
	}
	if c.ChunkWindow <= 0 || c.ChunkWindow > 64 {
		c.ChunkWindow = 64
	}
	if c.ChunksPerUpdate <= 0 {
		c.ChunksPerUpdate = 16
	}
	if c.FetchInterval <= 0 {
		c.FetchInterval = 100 * time.Millisecond
	}
	if c.FetchBurst <= 0 {
		c.FetchBurst = 4
	}
	if c.WelcomeResend <= 0 {
		c.WelcomeResend = 250 * time.Millisecond
	}
	c = c.messageDefaults()
	if c.Stall.Kind == StallWait && c.Stall.Wait <= 0 {
		c.Stall.Wait = 100 * time.Millisecond
	}
	if c.HashBits <= 0 || c.HashBits > 64 {
		c.HashBits = 8
	}
	switch {
	case c.Redundancy == 0:
		c.Redundancy = 1
	case c.Redundancy < 0:
		c.Redundancy = 0
	}
	return c
}

// messageDefaults fills in the defaults of the chat and game message
// settings.
func (c Config) messageDefaults() Config {
	if c.ChatMaxLen <= 0 || c.ChatMaxLen > codec.MaxChatText {
		c.ChatMaxLen = 200
	}
	if c.ChatRate <= 0 {
		c.ChatRate = 2
	}
	if c.ChatBacklog == 0 {
		c.ChatBacklog = 32
	}
	if c.ChatBurst <= 0 {
		c.ChatBurst = 5
	}
	if c.MessageRate <= 0 {
		c.MessageRate = 20
	}
	if c.MessageBurst <= 0 {
		c.MessageBurst = 40
	}
	return c
}
