package simmatch

import (
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
)

// SandReplays is a recorded sand match (RecordSand): the paths of the
// replays of its server, of an early player and of a late joiner, how
// many ticks the server's and the late joiner's hold, and the match's
// result.
type SandReplays struct {
	Server, Early, Late    string
	ServerTicks, LateTicks uint32
	Result                 Result
}

// RecordSand plays 60 s of 4-player sand (grid 64 at 60 Hz; 30 ms
// latency, 5 ms jitter, 5 % loss, seeded by seed), the match starting
// with three players and client 3 joining 20 s in; the server, client 0
// and client 3 (from the world it loaded) record replays into dir
// (server.rwreplay, early.rwreplay, late.rwreplay).
func RecordSand(dir string, seed int64) (SandReplays, error) {
	var r SandReplays
	newRec := func(name string, path *string) *replay.Recorder {
		*path = filepath.Join(dir, name+".rwreplay")
		return &replay.Recorder{Game: "sand", Settings: "grid=64 tick-rate=60",
			Open: func(codec.ReplayHeader) (io.Writer, error) { return os.Create(*path) }}
	}
	srec, erec, lrec := newRec("server", &r.Server), newRec("early", &r.Early), newRec("late", &r.Late)
	cfg := Config[sand.Input]{
		Players:  4,
		NewGame:  func() game.Game[sand.Input] { return sand.New(64) },
		Bot:      sand.Bot,
		Duration: 60 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05},
		JoinAt:   map[int]time.Duration{3: 20 * time.Second},
		Seed:     seed,
	}
	cfg.Server.StartPlayers = 3
	cfg.Server.Record = srec
	cfg.ClientConfig = func(i int, c *client.Config) {
		switch i {
		case 0:
			c.Record = erec
		case 3:
			c.Record = lrec
		}
	}
	res, err := Run(cfg)
	for _, rec := range []*replay.Recorder{srec, erec, lrec} {
		if cerr := rec.Close(); err == nil {
			err = cerr
		}
	}
	r.Result, r.ServerTicks, r.LateTicks = res, srec.Ticks(), lrec.Ticks()
	return r, err
}
