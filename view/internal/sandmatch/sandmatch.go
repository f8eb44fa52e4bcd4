// Package sandmatch records sand matches of bots for the view's tests,
// through the engine's public face only: a rewind.Host and players'
// rewind.Sessions over the transport simulator, in made-up time, the
// host's server recording a replay; and verifies a sand replay with
// sand.FromReplay and replay.Verify.
package sandmatch

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/replay"
	"github.com/rewindnet/rewind/transport"
)

// Config describes a match to record.
type Config struct {
	// Players is how many bots play (sand.Bot), all from the first tick.
	Players int
	// Grid is the sand grid's side.
	Grid int
	// Duration is how long the match runs, in made-up time.
	Duration time.Duration
	// Link is every link's latency, jitter and loss; Seed seeds them.
	Link transport.LinkConfig
	Seed int64
	// Record records the match (the host's ServerConfig.Record); the
	// caller closes it.
	Record *replay.Recorder
}

// Settings returns the settings text a recorder of sand writes (what
// sand.FromReplay reads): the grid side and the tick rate.
func Settings(grid, tickRate int) string {
	return fmt.Sprintf("grid=%d tick-rate=%d", grid, tickRate)
}

// Record plays the match of cfg to its end, a millisecond a step.
func Record(cfg Config) error {
	start := time.Unix(1_700_000_000, 0)
	net := transport.NewSimNetwork(cfg.Seed, start)
	net.SetDefaultLink(cfg.Link)
	sconn, err := net.Listen("server")
	if err != nil {
		return err
	}
	host, err := rewind.NewHost[sand.Input](sand.New(cfg.Grid), sconn, rewind.HostOptions{
		Server: rewind.ServerConfig{Record: cfg.Record, StartPlayers: cfg.Players}})
	if err != nil {
		return err
	}
	defer host.Close()
	players, err := join(net, cfg)
	for _, s := range players {
		defer s.Close()
	}
	if err != nil {
		return err
	}
	for now := start; now.Before(start.Add(cfg.Duration)); now = now.Add(time.Millisecond) {
		net.Advance(now)
		if err := host.Update(now); err != nil {
			return err
		}
		for i, s := range players {
			if err := s.Update(now); err != nil {
				return fmt.Errorf("player %d: %w", i, err)
			}
		}
	}
	return nil
}

// join connects cfg.Players sessions of sand bots to the host.
func join(net *transport.SimNetwork, cfg Config) ([]*rewind.Session[sand.Input], error) {
	var players []*rewind.Session[sand.Input]
	for i := range cfg.Players {
		c, err := net.Dial(fmt.Sprintf("p%d", i), "server")
		if err != nil {
			return players, err
		}
		s, err := rewind.Connect[sand.Input](sand.New(cfg.Grid), c, rewind.Options{})
		if err != nil {
			return players, err
		}
		s.SetInputFunc(func(tick uint32) sand.Input {
			me, _ := s.Player()
			return sand.Bot(me, tick)
		})
		players = append(players, s)
	}
	return players, nil
}

// Verify verifies the sand replay in b (replay.Verify with the game
// sand.FromReplay makes of its header).
func Verify(b []byte, opts replay.Options) (replay.Result, error) {
	h, err := replay.ReadHeader(bytes.NewReader(b))
	if err != nil {
		return replay.Result{}, err
	}
	g, err := sand.FromReplay(h)
	if err != nil {
		return replay.Result{Header: h}, err
	}
	return replay.Verify[sand.Input](g, bytes.NewReader(b), opts)
}
