package simmatch

import (
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

func newTestGame() game.Game[testgame.Input] { return &testgame.Game{} }

// check asserts what every match must show: every verified tick of every
// client hashed equal to the server's, no desync, and every client
// verified the match's last tick.
func check(t *testing.T, res Result, players int) {
	t.Helper()
	if res.Mismatches != 0 || !res.VerifiedEqual {
		t.Errorf("%d verified ticks hashed differently from the server's (of %d checked)", res.Mismatches, res.VerifiedTicks)
	}
	if res.Desyncs != 0 {
		t.Errorf("%d desyncs", res.Desyncs)
	}
	if res.Verified != res.Ticks {
		t.Errorf("a client verified only up to tick %d of %d", res.Verified, res.Ticks)
	}
	want := uint64(0)
	for _, j := range res.Joins {
		want += uint64(res.Ticks - j.FirstTick + 1)
	}
	if len(res.Joins) != players || res.VerifiedTicks != want {
		t.Errorf("%d (client, tick) pairs verified, want %d", res.VerifiedTicks, want)
	}
}

// play runs the match cfg describes, failing the test if it cannot.
func play(t *testing.T, cfg Config[testgame.Input]) Result {
	t.Helper()
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// playChecked plays cfg and checks what every match must show, for its
// cfg.Players players.
func playChecked(t *testing.T, cfg Config[testgame.Input]) Result {
	t.Helper()
	res := play(t, cfg)
	check(t, res, cfg.Players)
	return res
}

// TestMatchMatrix plays the light test game for 2, 4 and 16 players at
// 0, 5 and 20% loss and 0, 50 and 150 ms one-way latency (with jitter of a
// fifth of it, up to ±30 ms).
func TestMatchMatrix(t *testing.T) {
	for _, players := range []int{2, 4, 16} {
		for _, loss := range []float64{0, 0.05, 0.2} {
			for _, lat := range []time.Duration{0, 50 * time.Millisecond, 150 * time.Millisecond} {
				link := transport.LinkConfig{Latency: lat, Jitter: lat / 5, Loss: loss}
				name := fmt.Sprintf("players=%d/loss=%g/latency=%v", players, loss, lat)
				t.Run(name, func(t *testing.T) {
					res := playChecked(t, Config[testgame.Input]{
						Players:  players,
						NewGame:  newTestGame,
						Bot:      testgame.Bot,
						Duration: 3 * time.Second,
						Link:     link,
						Seed:     int64(players)*1000 + int64(loss*100) + int64(lat/time.Millisecond),
					})
					if lat == 0 && loss == 0 && res.MaxRollback > 3 {
						t.Errorf("max rollback %d ticks on a perfect network", res.MaxRollback)
					}
				})
			}
		}
	}
}

// TestMatchDuplicationReordering: every fifth datagram doubled, every fifth
// held back behind later ones, on top of loss and jitter.
func TestMatchDuplicationReordering(t *testing.T) {
	playChecked(t, Config[testgame.Input]{
		Players:  4,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 4 * time.Second,
		Link: transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 30 * time.Millisecond,
			Loss: 0.05, Duplicate: 0.2, Reorder: 0.2, ReorderDelay: 40 * time.Millisecond},
		Seed: 7,
	})
}

// TestMatchBlackout silences the lowest-id player for 2 s a third of the
// way in: it must stop at the prediction limit, and come back verified.
func TestMatchBlackout(t *testing.T) {
	res := playChecked(t, Config[testgame.Input]{
		Players:  4,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 6 * time.Second,
		Link:     transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		Blackout: 2 * time.Second,
		Seed:     11,
	})
	if res.Stalls == 0 {
		t.Error("the blacked-out player never waited at the prediction limit")
	}
	late := uint64(0)
	for _, c := range res.Clients {
		late = max(late, c.LateInputs)
	}
	if late < 100 {
		t.Errorf("at most %d late inputs: the blackout did not make the server repeat inputs", late)
	}
}

// TestMatchSlowClient gives one client a 700 ms one-way path: a round trip
// longer than the prediction window, so it keeps running into the limit
// and waiting, more than 1 s behind the server's news.
func TestMatchSlowClient(t *testing.T) {
	res := playChecked(t, Config[testgame.Input]{
		Players:  3,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 5 * time.Second,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond},
		Links:    map[int]transport.LinkConfig{0: {Latency: 700 * time.Millisecond, Jitter: 20 * time.Millisecond}},
		Seed:     3,
	})
	slow := res.Clients[0]
	if slow.Stalls == 0 {
		t.Errorf("the slow client never waited: %+v", slow)
	}
	if slow.MaxRollback > 61 {
		t.Errorf("rolled back %d ticks, past the 1 s window", slow.MaxRollback)
	}
}

// TestMatchPausedClient stops one client's machine for 1.5 s: when it runs
// again it is more than a second behind, catches up and verifies.
func TestMatchPausedClient(t *testing.T) {
	playChecked(t, Config[testgame.Input]{
		Players:  2,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 5 * time.Second,
		Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond},
		Pause:    map[int]Pause{1: {At: 2 * time.Second, Length: 1500 * time.Millisecond}},
		Seed:     5,
	})
}

// TestMatchInputDelay plays with two ticks of input delay: fewer rollbacks
// than without, same verified worlds.
func TestMatchInputDelay(t *testing.T) {
	run := func(delay int) Result {
		return playChecked(t, Config[testgame.Input]{
			Players:  4,
			NewGame:  newTestGame,
			Bot:      testgame.Bot,
			Duration: 4 * time.Second,
			Link:     transport.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond},
			Client:   client.Config{InputDelay: delay},
			Seed:     9,
		})
	}
	r0, r3 := run(0), run(3)
	if r3.Rollbacks >= r0.Rollbacks {
		t.Errorf("input delay 3: %d rollbacks, not fewer than %d without", r3.Rollbacks, r0.Rollbacks)
	}
}

// TestMatchDeterministic: the same seed gives the same match, bit for bit.
func TestMatchDeterministic(t *testing.T) {
	cfg := Config[testgame.Input]{
		Players:  3,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 2 * time.Second,
		Link:     transport.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.1},
		Seed:     42,
	}
	a := play(t, cfg)
	b := play(t, cfg)
	for i := range a.Clients {
		if a.Clients[i].VerifiedHash != b.Clients[i].VerifiedHash || a.Clients[i].Rollbacks != b.Clients[i].Rollbacks ||
			a.Clients[i].BytesIn != b.Clients[i].BytesIn {
			t.Fatalf("client %d differs between two runs of one seed:\n%+v\n%+v", i, a.Clients[i], b.Clients[i])
		}
	}
}

// TestDesyncDetected gives the clients a game that steps differently from
// the server's (it leaks a counter kept outside the world): every client
// must see its verified hashes differ, count desyncs, and report them.
func TestDesyncDetected(t *testing.T) {
	reported := 0
	res := play(t, Config[testgame.Input]{
		Players:       2,
		NewGame:       newTestGame,
		NewClientGame: func() game.Game[testgame.Input] { return &testgame.Flaky{} },
		Bot:           testgame.Bot,
		Duration:      time.Second,
		Link:          transport.LinkConfig{Latency: 20 * time.Millisecond},
		Client: client.Config{NoRepair: true,
			OnDesync: func(tick uint32, ours, theirs uint64) { reported++ }},
	})
	if res.VerifiedEqual || res.Mismatches == 0 {
		t.Fatalf("a diverging game verified equal: %+v", res)
	}
	if res.Desyncs == 0 || reported != int(res.Desyncs) {
		t.Fatalf("%d desyncs counted, %d reported", res.Desyncs, reported)
	}
	if res.Resyncs != 0 {
		t.Fatalf("%d resyncs with repairs off", res.Resyncs)
	}
}

// TestMatchLateJoinWithinHistory: a player who says hello 2 s into the match
// joins from the world at its welcome's tick (a world transfer) and
// verifies every tick since.
func TestMatchLateJoinWithinHistory(t *testing.T) {
	res := playChecked(t, Config[testgame.Input]{
		Players:  3,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 4 * time.Second,
		Link:     transport.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		Server:   server.Config{StartPlayers: 2},
		JoinAt:   map[int]time.Duration{2: 2 * time.Second},
		Seed:     13,
	})
	if res.Server.Joins != 3 {
		t.Fatalf("%d joins", res.Server.Joins)
	}
	if j := res.Joins[2]; j.FirstTick < 100 || res.Server.Transfers == 0 {
		t.Fatalf("the late player started at tick %d after %d transfers", j.FirstTick, res.Server.Transfers)
	}
}
