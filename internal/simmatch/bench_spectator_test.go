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

// BenchmarkSpectators measures what spectators cost the server: a match of
// 4 players of the test game and 0, 16 or 64 spectators over the
// in-process transport; one iteration is one tick. Reported: the server's
// CPU time (thread) and bytes sent per tick; the cost of a spectator is
// the difference to 0 spectators, divided by their number
// (docs/benchmarks.md).
func BenchmarkSpectators(b *testing.B) {
	for _, specs := range []int{0, 16, 64} {
		b.Run(fmt.Sprintf("spectators=%d", specs), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			net := transport.NewLoopback()
			sconn, _ := net.Listen("server")
			defer sconn.Close()
			srv, err := server.New[testgame.Input](&testgame.Game{}, sconn, server.Config{MaxPlayers: 4, StartPlayers: 4, MaxSpectators: 64})
			if err != nil {
				b.Fatal(err)
			}
			var clients []*client.Client[testgame.Input]
			for i := range 4 + specs {
				conn, _ := net.Dial(fmt.Sprintf("c%d", i), "server")
				defer conn.Close()
				c, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{Spectate: i >= 4})
				if err != nil {
					b.Fatal(err)
				}
				c.SetInputFunc(func(t uint32) testgame.Input { return testgame.Bot(game.PlayerID(i), t) })
				clients = append(clients, c)
			}
			step := func() time.Duration {
				now = now.Add(time.Second / 60)
				c0, _ := cputime.Thread()
				if err := srv.Update(now); err != nil {
					b.Fatal(err)
				}
				c1, _ := cputime.Thread()
				for _, c := range clients {
					if err := c.Update(now); err != nil {
						b.Fatal(err)
					}
				}
				return c1 - c0
			}
			for range 120 {
				step()
			}
			bytes0 := srv.Stats().BytesOut
			var cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				cpu += step()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/tick")
			b.ReportMetric(float64(srv.Stats().BytesOut-bytes0)/float64(b.N), "bytes/tick")
			if st := srv.Stats(); st.Spectators != uint64(specs) || st.Players != 4 {
				b.Fatalf("%d players, %d spectators", st.Players, st.Spectators)
			}
		})
	}
}
