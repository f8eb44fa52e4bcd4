package client

import (
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/world"
)

// DefaultLockstepDelay is a lockstep client's input delay in ticks when
// Config.InputDelay is 0.
const DefaultLockstepDelay = 2

// Config holds a client's settings. The zero value of every field means
// its default.
type Config struct {
	// InputDelay delays the client's own input by this many ticks, as GGPO
	// offers: fewer rollbacks for a little latency (default 0; in
	// lockstep, 0 means 2 ticks, as PNEngine and WebDoom default to).
	InputDelay int
	// Lockstep makes the client a lockstep client (lockstep.go): it never
	// predicts. Its world advances only through ticks the server has
	// confirmed, each checked against the server's hash as it is shown;
	// when the next tick has not come it stalls on the last one. It keeps
	// no rollback snapshots. Its input for tick V+InputDelay is sampled
	// when it shows tick V (later, when the round trip is longer than the
	// delay: see docs/networking.md).
	Lockstep bool
	// AutoInputDelay, in lockstep, sets the input delay from the measured
	// round trip at every ping, as WebDoom does: the ticks of a round
	// trip, rounded up, plus three (at most MaxPrediction).
	AutoInputDelay bool
	// ExactDelay, in lockstep, samples the input for tick T+InputDelay as
	// late as a client beside the server can: when it shows tick T+1 (with
	// an InputDelay of 1, when it shows tick T), with no round-trip floor.
	// An input set after tick T is shown and before tick T+1 is then
	// applied at exactly T+InputDelay. It is for a client in the server's
	// process over a loopback (the JSON gateway's players): over a real
	// network its inputs would reach the server late (default false).
	ExactDelay bool
	// MaxPrediction is how far the client predicts past the verified tick
	// before it waits for the server (default 1 s).
	MaxPrediction time.Duration
	// MarginLow and MarginHigh bound the band of the server's margin
	// report (how early this client's inputs arrive, the smallest over
	// the server's report window) within which the client leaves its lead
	// alone. Defaults: 2 ms and 2 ms + two ticks.
	MarginLow, MarginHigh time.Duration
	// HelloInterval is how often a hello is sent until a welcome comes
	// (default 250 ms).
	HelloInterval time.Duration
	// PingInterval is how often the client measures the round trip
	// (default 1 s).
	PingInterval time.Duration
	// ServerTimeout ends the session when the server has not been heard
	// from for this long (default 5 s).
	ServerTimeout time.Duration
	// Cookie, if 16 bytes (a Client.Cookie from an earlier session),
	// asks to rejoin as the player it was given to: the same player id,
	// and what the game kept for it.
	Cookie []byte
	// Room, if set, is the code of the room (the match) to join on a
	// server that hosts many matches on one socket (host.Multi):
	// 6 to 12 characters, sent in every hello (codec.Hello.Room; a code
	// longer than 6 in the hello's long form, which servers older than it
	// drop). A server with one match ignores it. New refuses a Room that
	// is not 6 to 12 printable ASCII characters.
	Room string
	// Resume, if set, rejoins a match that a new host took over (host
	// migration): the client says hello with Resume.Cookie and starts
	// from Resume.World, its last verified world, so that it loads only
	// the pages of the new server's world that differ.
	Resume *Handoff
	// FetchRetry is how long a world transfer or repair waits for
	// progress before asking again (default twice the round trip, 100 ms
	// to 1 s).
	FetchRetry time.Duration
	// NoRepair turns repairs off: a desync is only counted and reported
	// (OnDesync), and the client plays on with its own world.
	NoRepair bool
	// HostSettings makes the client take the host's match settings
	// (the sand game's grid size and tick rate, say) instead of its own
	// game's: its hello asks only for the same input schema, and the
	// welcome's settings build the game it plays (its game must be a
	// game.Configurable; Client.Game returns the one built). Without it
	// (the default) the client's game must be the host's exactly, or the
	// server refuses it. Not with Schema or Resume.
	HostSettings bool
	// Schema, if not nil, is a schema the game has already registered into
	// (a server and a client in one process share it); otherwise New calls
	// the game's Register with a fresh schema.
	Schema *world.Schema
	// OnVerified, if set, is called for every verified tick, in order, with
	// the full hash of the client's world at that tick.
	OnVerified func(tick uint32, hash uint64)
	// OnDesync, if set, is called for every verified tick whose hash
	// differs from the server's (in the bits the server sends).
	OnDesync func(tick uint32, ours, theirs uint64)
	// DebugDesync, if set, turns the desync debugger on: the repair of a
	// desynced tick asks for the server's whole world of that tick (not
	// only the pages that differ), and once it came DebugDesync is called
	// with the client's own world of the tick (as the client computed it)
	// and the server's, both valid only during the call (world.Diff names
	// the fields that differ; World.AppendDump writes them for rewind
	// diff). It needs repairs (NoRepair unset); it is not called when the
	// server cannot rebuild its world of that tick (it sends a newer
	// tick's world instead, and the client starts over from that).
	DebugDesync func(tick uint32, ours, server *world.World)
	// Record, if set, records the ticks the client verifies for a replay
	// (record.go; replay.Recorder writes a replay file).
	Record replay.Sink
	// Spectate makes the client a spectator: it asks for no player slot,
	// sends no input (only acknowledgements), never predicts and shows
	// only the ticks the server verified (lockstep), no earlier than
	// SpectateDelay after the server ran them (the server holds them
	// back; at most three quarters of its History).
	Spectate      bool
	SpectateDelay time.Duration
}

func (c Config) withDefaults(dt time.Duration) Config {
	c.InputDelay = max(c.InputDelay, 0)
	if c.Spectate {
		c.Lockstep = true
	}
	if c.Lockstep && c.InputDelay == 0 {
		c.InputDelay = DefaultLockstepDelay
	}
	if c.MaxPrediction <= 0 {
		c.MaxPrediction = time.Second
	}
	if c.MarginLow <= 0 {
		c.MarginLow = 2 * time.Millisecond
	}
	if c.MarginHigh <= c.MarginLow {
		c.MarginHigh = c.MarginLow + 2*dt
	}
	if c.HelloInterval <= 0 {
		c.HelloInterval = 250 * time.Millisecond
	}
	if c.PingInterval <= 0 {
		c.PingInterval = time.Second
	}
	if c.ServerTimeout <= 0 {
		c.ServerTimeout = 5 * time.Second
	}
	return c
}

// Stats is what a client reports about itself.
type Stats struct {
	// Player is the client's player id (valid once welcomed).
	Player game.PlayerID
	// Verified is the last tick confirmed by the server and checked, and
	// VerifiedHash the client's full world hash at it.
	Verified     uint32
	VerifiedHash uint64
	// Predicted is the tick the client's world is at.
	Predicted uint32
	// Ping is the measured round trip.
	Ping time.Duration
	// Rollbacks counts rollbacks; RolledBackTicks the ticks simulated again
	// in all; MaxRollback the deepest, in ticks.
	Rollbacks       uint64
	RolledBackTicks uint64
	MaxRollback     uint32
	// Desyncs counts verified ticks whose hash differed from the server's
	// after resimulation; Resyncs counts repairs (the server's pages
	// applied and the world's hash checked against the server's).
	Desyncs uint64
	// Players counts the players in the match as of the verified tick
	// (joined and not left; the HUD's "players N").
	Players int
	Resyncs uint64
	// Rebases counts welcomes that moved the client to a newer tick's
	// world (it fell further behind than the server keeps ticks).
	Rebases uint64
	// Handovers counts handover data taken (newer versions of the
	// server's host migration data).
	Handovers uint64
	// FetchRequests counts requests for page hashes or pages; PagesAsked
	// the pages asked for; WholeWorlds the whole worlds asked for (or
	// pushed); ChunksIn the world chunks taken; FetchFailures the fetched
	// worlds that did not decode or hash as the server's; FetchBytes the
	// bytes of the encodings applied.
	FetchRequests, PagesAsked, WholeWorlds uint64
	ChunksIn, FetchFailures, FetchBytes    uint64
	// ModuleRequests counts requests for pieces of the game's module;
	// ModuleBytes the module bytes taken (module.go).
	ModuleRequests, ModuleBytes uint64
	// LateInputs counts ticks in which the server did not have this
	// client's input in time.
	LateInputs uint64
	// Stalls counts updates in which prediction waited for the server at
	// the MaxPrediction limit; in lockstep, updates in which the next tick
	// was due (by the client's clock of the server) and had not come.
	Stalls uint64
	// WaitingFor is the players the server holds the match for (bit p for
	// player p; 0 when the match is not stalled), and WaitingHeard counts
	// the server's Waiting messages taken.
	WaitingFor   uint64
	WaitingHeard uint64
	// InputLatencySum and InputSamples measure input-to-screen latency:
	// over every input sampled, the ticks from the tick on screen when it
	// was sampled to the tick it applies to (a predicting client shows
	// its own input in the next predicted tick, InputDelay later; a
	// lockstep client when that tick is verified).
	InputLatencySum, InputSamples uint64
	// SnapshotBytes is the bytes of world snapshots the rollback ring
	// holds (none in lockstep).
	SnapshotBytes uint64
	// ChatIn counts match messages received; ChatDropped those dropped
	// because 4,096 waited for Chat.
	ChatIn, ChatDropped uint64
	// InputDelay is the input delay in use, in ticks (in lockstep with
	// AutoInputDelay, the last one picked).
	InputDelay int
	// LeadCorrections counts corrections of the lead over the server.
	LeadCorrections int
	// Steps counts game steps run (predictions and resimulations).
	Steps uint64
	// BytesIn, BytesOut, DatagramsIn and DatagramsOut count datagram
	// payloads; BadDatagrams those dropped as malformed or stray.
	BytesIn, BytesOut         uint64
	DatagramsIn, DatagramsOut uint64
	BadDatagrams              uint64
}
