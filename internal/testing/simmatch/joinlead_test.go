package simmatch

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestJoinerLeadSettles: a player who joins after the server's history
// (4 s) gets the world and must then run as far ahead of the server as the
// players there from the start, no further: its mean predicted minus
// verified tick over the match's last second within a few ticks of
// theirs, and its rollbacks no deeper than theirs. With the small test
// world, the world comes whole with the welcome, before any tick after it
// (the case where the joiner's clock once started from no tick at all and
// ran a second ahead for good); with a 64 KiB world at 50 ms, ticks arrive
// while it loads.
func TestJoinerLeadSettles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		newGame func() game.Game[testgame.Input]
		link    transport.LinkConfig
	}{
		{"small world/loopback", newTestGame, transport.LinkConfig{}},
		{"small world/50ms", newTestGame, transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}},
		{"64KiB world/50ms", func() game.Game[testgame.Input] { return &churn{size: 64 << 10} },
			transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const joiner = 3
			res := playChecked(t, Config[testgame.Input]{
				Players:  4,
				NewGame:  tc.newGame,
				Bot:      testgame.Bot,
				Duration: 7 * time.Second,
				Link:     tc.link,
				Server:   server.Config{StartPlayers: 3},
				JoinAt:   map[int]time.Duration{joiner: 4500 * time.Millisecond},
				Seed:     21,
			})
			if j := res.Joins[joiner]; j.FirstTick < 240 || res.Server.Transfers == 0 {
				t.Fatalf("the joiner started at tick %d after %d transfers: not a join through the world", j.FirstTick, res.Server.Transfers)
			}
			var lead float64
			var depth uint32
			for i := range joiner {
				lead += res.Lead[i] / joiner
				depth = max(depth, res.Clients[i].MaxRollback)
			}
			j := res.Clients[joiner]
			t.Logf("lead over the last second: joiner %.1f ticks, others %.1f (%.1f); deepest rollback: joiner %d, others %d; joiner stalls %d",
				res.Lead[joiner], lead, res.Lead[:joiner], j.MaxRollback, depth, j.Stalls)
			if d := res.Lead[joiner] - lead; d > 3 || d < -3 || res.Lead[joiner] == 0 {
				t.Errorf("the joiner runs %.1f ticks ahead of its verified tick, the others %.1f", res.Lead[joiner], lead)
			}
			if j.MaxRollback > depth+3 {
				t.Errorf("the joiner's deepest rollback is %d ticks, the others' %d", j.MaxRollback, depth)
			}
			if j.Stalls != 0 {
				t.Errorf("the joiner waited at the prediction limit %d times", j.Stalls)
			}
			if res.FullyVerified != 4 {
				t.Errorf("%d clients fully verified, want 4", res.FullyVerified)
			}
		})
	}
}
