package simmatch

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/tools/cputime"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// BenchmarkServerNullGame measures the server's cost per player-tick with a
// game that does next to nothing, over the in-process transport (perfect
// links, delivered during Send): receiving every player's inputs, queuing
// them, running the tick, encoding it once and sending every player its
// datagram. One iteration is one tick; the clients run between ticks and
// are not counted. Reported: ns/player-tick of wall time in the server's
// Update, and cpu-ns/player-tick of the thread's CPU time.
func BenchmarkServerNullGame(b *testing.B) {
	for _, players := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("players=%d", players), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			srv, step := benchMatch(b, func() game.Game[testgame.Input] { return &testgame.Null{} }, players, 0)
			var wall, cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				w, c := step()
				wall += w
				cpu += c
			}
			pt := float64(b.N * players)
			b.ReportMetric(float64(wall.Nanoseconds())/pt, "ns/player-tick")
			b.ReportMetric(float64(cpu.Nanoseconds())/pt, "cpu-ns/player-tick")
			if st := srv.Stats(); st.LateInputs > uint64(players)*10 {
				b.Fatalf("%d late inputs: the clients are not keeping up", st.LateInputs)
			}
		})
	}
}

// benchMatch sets up a match of players players and spectators
// spectators (test-game bots) over the in-process transport, each
// machine with its own game from newGame, and plays its first 120
// ticks (handshakes and two seconds of play). step runs the server, then
// every client, a tick (1/60 s of made-up time) on, and returns the wall
// and the thread's CPU time of the server's Update. Everything closes at
// the benchmark's end.
func benchMatch(b *testing.B, newGame func() game.Game[testgame.Input], players, spectators int) (*server.Server[testgame.Input], func() (wall, cpu time.Duration)) {
	b.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewLoopback()
	sconn, _ := net.Listen("server")
	b.Cleanup(func() { sconn.Close() })
	srv, err := server.New(newGame(), sconn, server.Config{MaxPlayers: players, StartPlayers: players, MaxSpectators: spectators})
	if err != nil {
		b.Fatal(err)
	}
	var clients []*client.Client[testgame.Input]
	for i := range players + spectators {
		conn, _ := net.Dial(fmt.Sprintf("c%d", i), "server")
		b.Cleanup(func() { conn.Close() })
		c, err := client.New(newGame(), conn, client.Config{Spectate: i >= players})
		if err != nil {
			b.Fatal(err)
		}
		c.SetInputFunc(func(t uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), t) })
		clients = append(clients, c)
	}
	step := func() (wall, cpu time.Duration) {
		now = now.Add(time.Second / 60)
		c0, _ := cputime.Thread()
		w0 := time.Now()
		if err := srv.Update(now); err != nil {
			b.Fatal(err)
		}
		wall = time.Since(w0)
		c1, _ := cputime.Thread()
		for _, c := range clients {
			if err := c.Update(now); err != nil {
				b.Fatal(err)
			}
		}
		return wall, c1 - c0
	}
	for range 120 {
		step()
	}
	return srv, step
}
