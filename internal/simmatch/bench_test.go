package simmatch

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/cputime"
	"github.com/rewindnet/rewind/internal/testgame"
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
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			net := transport.NewLoopback()
			sconn, _ := net.Listen("server")
			defer sconn.Close()
			srv, err := server.New[testgame.Input](&testgame.Null{}, sconn, server.Config{MaxPlayers: players, StartPlayers: players})
			if err != nil {
				b.Fatal(err)
			}
			var clients []*client.Client[testgame.Input]
			for i := range players {
				conn, _ := net.Dial(fmt.Sprintf("c%d", i), "server")
				defer conn.Close()
				c, err := client.New[testgame.Input](&testgame.Null{}, conn, client.Config{})
				if err != nil {
					b.Fatal(err)
				}
				c.SetInputFunc(func(t uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), t) })
				clients = append(clients, c)
			}
			now := start
			step := func(d time.Duration) (wall, cpu time.Duration) {
				now = now.Add(d)
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
			for range 120 { // handshake and a couple of seconds of play
				step(time.Second / 60)
			}
			var wall, cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				w, c := step(time.Second / 60)
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
