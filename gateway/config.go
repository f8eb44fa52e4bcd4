package gateway

import (
	"log/slog"
	"time"

	"github.com/rewindnet/rewind/world"
)

// Config configures a Gateway. The zero value of every field means its
// default.
type Config[I any] struct {
	// InputDelay is the lockstep players' input delay in ticks, sent as
	// initial_state's inputDelayTicks (default 2): a JSON client's input is
	// scheduled this many ticks past the newest tick it was sent when the
	// gateway takes it (docs/gateway.md, "When an input applies"); with 1,
	// two ticks past.
	InputDelay int
	// History is how long the ticks sent to a player are kept for a resume
	// (default 4 s, as the server keeps ticks).
	History time.Duration
	// RejoinWindow is how long a player whose socket closed keeps its slot
	// for a resume (default 10 s); its walker goes on with its last input
	// meanwhile. Then it leaves the match.
	RejoinWindow time.Duration
	// ResumeWait is how long a new socket waits for a resume message
	// before it is given a new slot (default 250 ms). A client of the
	// original protocol, which sends nothing first, gets its initial_state
	// that much later.
	ResumeWait time.Duration
	// MaxMessage is the largest client message in bytes (default 4,096);
	// a larger one is answered with too_large and the connection closes
	// (one declaring over 16 times as much is cut at once, unread).
	MaxMessage int
	// Rate and Burst bound the messages a connection may send: Rate a
	// second on average (default 30), Burst at once (default 30). More
	// are answered with rate_limited and dropped.
	Rate  float64
	Burst int
	// CheckpointEvery is the least time between two initial_states sent
	// to one player for its desync messages (default 2 s). The gap
	// doubles with each checkpoint sent, up to CheckpointMax (default
	// 60 s), and falls back to CheckpointEvery when CheckpointMax more
	// has passed without one. A desync that comes too soon is kept
	// and answered when the gap has passed: a storm of desyncs costs the
	// server one whole world a minute, not one per message (issue 30:
	// 1,100 times the bytes it received).
	CheckpointEvery, CheckpointMax time.Duration
	// RepairRate bounds the bytes a second, on average, of the answers
	// to one player's desyncs (default 8,192): after an answer of n
	// bytes the next waits at least n / RepairRate, whatever the gap
	// above. A pages answer of a few pages leaves the gap as it is; a
	// whole world of 200 KB (sand on a 256 grid as JSON) waits 25 s.
	RepairRate float64
	// SendQueue is how many messages may wait for a slow client's socket
	// (default 1,024); more close the connection (the client may resume).
	SendQueue int
	// Destination, if set, turns a destination_input's target, in whole
	// centimetres within ±DestinationBound on both axes, into the game's
	// input. Without it destination_input is refused as invalid_input.
	Destination      func(x, y int32) I
	DestinationBound int32
	// Schema, if not nil, is the schema the game was registered into;
	// otherwise New registers the game into a fresh one (Schema returns
	// it: pass it to the host so that the game is registered once).
	Schema *world.Schema
	// Log, if set, gets the gateway's events: connections, players,
	// resumes, refusals.
	Log *slog.Logger
}

func (c Config[I]) withDefaults() Config[I] {
	if c.InputDelay <= 0 {
		c.InputDelay = 2
	}
	if c.History <= 0 {
		c.History = 4 * time.Second
	}
	if c.RejoinWindow <= 0 {
		c.RejoinWindow = 10 * time.Second
	}
	if c.ResumeWait <= 0 {
		c.ResumeWait = 250 * time.Millisecond
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = 4096
	}
	if c.Rate <= 0 {
		c.Rate = 30
	}
	if c.Burst <= 0 {
		c.Burst = 30
	}
	if c.CheckpointEvery <= 0 {
		c.CheckpointEvery = 2 * time.Second
	}
	if c.CheckpointMax < c.CheckpointEvery {
		c.CheckpointMax = max(c.CheckpointEvery, time.Minute)
	}
	if c.RepairRate <= 0 {
		c.RepairRate = 8192
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 1024
	}
	return c
}
