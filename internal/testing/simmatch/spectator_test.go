package simmatch

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/world"
)

// TestSpectators: 4 players and 8 spectators through 10% loss: every tick
// a spectator verified or showed hashed as the server's world did (its
// shown world checked after every Update that moved it), every
// spectator followed the match to its end, and the spectators took no
// slot (the server counts 4 players).
func TestSpectators(t *testing.T) {
	res := play(t, spectatorsMatch(10*time.Second, 0.10, 11))
	if res.Mismatches != 0 || !res.VerifiedEqual || res.ShownMismatches != 0 {
		t.Fatalf("%d verified and %d shown ticks differed from the server's", res.Mismatches, res.ShownMismatches)
	}
	// Spectators show only verified ticks: each world shown (after
	// every Update in which it moved) hashed as the server's of its tick.
	if res.ShownTicks < uint64(8*res.Ticks/2) || res.ShownUnverified != 0 {
		t.Fatalf("spectators' worlds checked %d times over %d ticks (%d showing an unverified tick)", res.ShownTicks, res.Ticks, res.ShownUnverified)
	}
	if res.Server.Players != 4 || res.Server.Spectators != 8 {
		t.Fatalf("server: %d players, %d spectators admitted", res.Server.Players, res.Server.Spectators)
	}
	for i := 4; i < 12; i++ {
		if res.ClientVerifiedTicks[i] < uint64(res.Ticks)*9/10 {
			t.Errorf("spectator %d verified %d of %d ticks", i, res.ClientVerifiedTicks[i], res.Ticks)
		}
		if res.Clients[i].Rollbacks != 0 {
			t.Errorf("spectator %d rolled back %d times: it predicted", i, res.Clients[i].Rollbacks)
		}
	}
	var pb, sb uint64
	for i, st := range res.Clients {
		if i < 4 {
			pb += st.BytesIn
		} else {
			sb += st.BytesIn
		}
	}
	t.Logf("%d ticks; bytes a player received %d, a spectator %d (means)", res.Ticks, pb/4, sb/8)
}

// TestSpectatorDelay: a spectator 3 s behind verifies tick T only once the
// server has run tick T+180 (T ran at least 3 s before; checked while the
// server still ticks: after the match's last tick the server's tick no
// longer tells the time), and follows the match with every tick hashed as
// the server's.
func TestSpectatorDelay(t *testing.T) {
	cfg, w := delayedSpectatorMatch(t, 10*time.Second, 3*time.Second, 5)
	cfg.JoinAt = map[int]time.Duration{2: time.Second}
	res := play(t, cfg)
	if res.Mismatches != 0 || !res.VerifiedEqual || res.ShownMismatches != 0 {
		t.Fatalf("%d verified and %d shown ticks differed from the server's", res.Mismatches, res.ShownMismatches)
	}
	if w.verified < 500 || w.checked < 200 || w.early != 0 {
		t.Fatalf("the spectator verified %d ticks (%d checked), %d of them early", w.verified, w.checked, w.early)
	}
	t.Logf("the spectator verified %d ticks of %d; %d checked, none earlier than 3 s after the server ran it", w.verified, res.Ticks, w.checked)
}

// TestSpectatorsAtTheEnd: the server ends the match (Server.End) at its
// last tick, through 10% and 30% loss both ways: every spectator (one of
// them 1 s behind, one joining 2 s in: it loads the world) and every
// player is said goodbye only once it has every tick up to the last,
// verified, its world the server's final world.
func TestSpectatorsAtTheEnd(t *testing.T) {
	for _, loss := range []float64{0.10, 0.30} {
		t.Run(fmt.Sprintf("loss=%v", loss), func(t *testing.T) {
			cfg := spectatorsMatch(5*time.Second, loss, int64(loss*100))
			cfg.JoinAt = map[int]time.Duration{10: 2 * time.Second}
			cfg.End = true
			spectate := cfg.ClientConfig
			cfg.ClientConfig = func(i int, c *client.Config) {
				spectate(i, c)
				if i == 11 {
					c.SpectateDelay = time.Second
				}
			}
			res := play(t, cfg)
			if res.Mismatches != 0 || !res.VerifiedEqual || res.ShownMismatches != 0 {
				t.Fatalf("%d verified and %d shown ticks differed from the server's", res.Mismatches, res.ShownMismatches)
			}
			for i, e := range res.Ends {
				switch {
				case e == nil:
					t.Errorf("client %d: no goodbye that ended the match (dropped: %d)", i, res.Dropped)
				case !e.Complete() || e.Last != res.Ticks:
					t.Errorf("client %d: %v; the server's last tick %d", i, e, res.Ticks)
				case res.FinalHashes[i] != res.FinalHash:
					t.Errorf("client %d: final verified world %016x, the server's %016x", i, res.FinalHashes[i], res.FinalHash)
				case i >= 4 && res.FinalWorlds[i] != res.FinalHash:
					t.Errorf("spectator %d shows a world %016x, the server's %016x", i, res.FinalWorlds[i], res.FinalHash)
				}
			}
			if res.FullyVerified != 12 {
				t.Errorf("%d of 12 clients verified every tick from their first to the last", res.FullyVerified)
			}
			t.Logf("%d ticks; every client said goodbye at tick %d with the server's world", res.Ticks, res.Ticks)
		})
	}
}

// TestDelayedSpectatorFallsBehind: a spectator 2 s behind whose path goes
// dark for 3 s falls further behind than the server keeps ticks (4 s); it
// gets the world again, like a player, and keeps its delay: no tick T is
// verified before the server has run T+120, before the blackout or
// after, and it follows the match to its last tick, every tick hashed as
// the server's.
func TestDelayedSpectatorFallsBehind(t *testing.T) {
	cfg, w := delayedSpectatorMatch(t, 12*time.Second, 2*time.Second, 7)
	cfg.Blackouts = map[int]Pause{2: {At: 3 * time.Second, Length: 3 * time.Second}}
	w.afterTick = 6 * 60
	res := play(t, cfg)
	if res.Mismatches != 0 || !res.VerifiedEqual || res.ShownMismatches != 0 {
		t.Fatalf("%d verified and %d shown ticks differed from the server's", res.Mismatches, res.ShownMismatches)
	}
	if res.Server.Rebases == 0 {
		t.Fatal("the spectator was never rebased: it did not fall behind the history")
	}
	if w.early != 0 || w.after < 300 || res.Clients[2].Verified != res.Ticks {
		t.Fatalf("the spectator verified %d ticks, %d after the blackout, %d early; its last %d of %d",
			w.verified, w.after, w.early, res.Clients[2].Verified, res.Ticks)
	}
	t.Logf("rebased %d times; the spectator verified %d ticks (%d after the blackout), none earlier than 2 s after it ran",
		res.Server.Rebases, w.verified, w.after)
}

// spectatorsMatch is a match of 4 players and 8 spectators (clients 4 to
// 11) for d, on links of 40 ms ± 10 ms with loss.
func spectatorsMatch(d time.Duration, loss float64, seed int64) Config[testgame.Input] {
	cfg := Config[testgame.Input]{
		Players:  12,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: d,
		Link:     transport.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: loss},
		Seed:     seed,
	}
	cfg.Server.StartPlayers = 4
	cfg.Server.MaxPlayers = 4
	cfg.ClientConfig = func(i int, c *client.Config) { c.Spectate = i >= 4 }
	return cfg
}

// delayWatch is what a delayed spectator verified: how many ticks, how
// many of them checked against the server's tick (while the server still
// ticks: after the match's last tick the server's tick no longer tells the
// time), how many of those early (less than the delay after the server ran
// them), and how many after afterTick.
type delayWatch struct {
	verified, checked, early, after int
	afterTick                       uint32
}

// delayedSpectatorMatch is a match of two players and a spectator (client
// 2) delay behind, for d on links of 20 ms with 5 % loss; w counts what
// the spectator verified, and the test fails at the first tick verified
// early.
func delayedSpectatorMatch(t *testing.T, d, delay time.Duration, seed int64) (Config[testgame.Input], *delayWatch) {
	var serverTick uint32
	last, behind := uint32(d/time.Second*60), uint32(delay/time.Second*60) // 60 ticks a second
	w := &delayWatch{}
	cfg := Config[testgame.Input]{
		Players:  3,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: d,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05},
		Seed:     seed,
	}
	cfg.Server.StartPlayers = 2
	cfg.Server.OnTick = func(tick uint32, _ *world.World, _ uint64) { serverTick = tick }
	cfg.ClientConfig = func(i int, c *client.Config) {
		if i != 2 {
			return
		}
		c.Spectate, c.SpectateDelay = true, delay
		c.OnVerified = func(tick uint32, _ uint64) {
			w.verified++
			if w.afterTick > 0 && tick > w.afterTick {
				w.after++
			}
			if serverTick >= last {
				return // the match is over: the server's tick stopped
			}
			w.checked++
			if serverTick < tick+behind {
				w.early++
				if w.early == 1 {
					t.Errorf("tick %d verified when the server was at tick %d: less than %v after it ran", tick, serverTick, delay)
				}
			}
		}
	}
	return cfg, w
}

// TestSpectatorFallsBehind: a spectator without a delay whose path goes
// dark for 4.5 s (longer than the server keeps ticks, 4 s; shorter than
// the timeouts, 5 s) gets the world again, like a player, and follows the
// match to its last tick, every tick it verified or showed hashed as the
// server's.
func TestSpectatorFallsBehind(t *testing.T) {
	cfg, w := delayedSpectatorMatch(t, 12*time.Second, 0, 9)
	cfg.Blackouts = map[int]Pause{2: {At: 3 * time.Second, Length: 4500 * time.Millisecond}}
	w.afterTick = 7*60 + 30
	res := play(t, cfg)
	if res.Mismatches != 0 || !res.VerifiedEqual || res.ShownMismatches != 0 {
		t.Fatalf("%d verified and %d shown ticks differed from the server's", res.Mismatches, res.ShownMismatches)
	}
	if res.Server.Rebases == 0 {
		t.Fatal("the spectator was never rebased: it did not fall behind the history")
	}
	if w.after < 200 || res.Clients[2].Verified != res.Ticks {
		t.Fatalf("the spectator verified %d ticks, %d after the blackout; its last %d of %d",
			w.verified, w.after, res.Clients[2].Verified, res.Ticks)
	}
	t.Logf("rebased %d times; the spectator verified %d ticks (%d after the blackout)", res.Server.Rebases, w.verified, w.after)
}
