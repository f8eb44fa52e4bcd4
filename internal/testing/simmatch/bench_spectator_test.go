package simmatch

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
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
			srv, step := benchMatch(b, func() game.Game[testgame.Input] { return &testgame.Game{} }, 4, specs)
			bytes0 := srv.Stats().BytesOut
			var cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				_, c := step()
				cpu += c
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/tick")
			b.ReportMetric(float64(srv.Stats().BytesOut-bytes0)/float64(b.N), "bytes/tick")
			if st := srv.Stats(); st.Spectators != uint64(specs) || st.Players != 4 {
				b.Fatalf("%d players, %d spectators", st.Players, st.Spectators)
			}
		})
	}
}
