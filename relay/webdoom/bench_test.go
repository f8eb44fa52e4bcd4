package webdoom

import (
	"runtime"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// wdBenchCore returns a core with a launched 4-player session whose players
// are connected as conns 1..4 (the lobby seats are 101..104).
func wdBenchCore(tb testing.TB) (*Core, time.Time) {
	c := NewCore(DefaultConfig(), nil)
	now := time.Unix(1_000_000, 0)
	for i := 0; i < 4; i++ {
		c.OpenLobby(ConnID(101+i), now)
	}
	c.LobbyMessage(101, []byte(`{"t":"start"}`), now)
	now = now.Add(3 * time.Second)
	c.Advance(now)
	for i := 0; i < 4; i++ {
		c.OpenGame(ConnID(1+i), "slot="+string(rune('0'+i)), now)
	}
	if !c.Status().Launched {
		tb.Fatal("not launched")
	}
	return c, now
}

// BenchmarkCoreSeal is the relay core's CPU per sealed tic: 4 cmds
// in (each decoded, windowed, stored), one bundle sealed into the history
// and handed to 4 sockets. One op is one tic.
func BenchmarkCoreSeal(b *testing.B) {
	c, now := wdBenchCore(b)
	var msg [4][]byte
	for i := range msg {
		msg[i] = make([]byte, wire.CmdSize)
	}
	sealed := 0
	b.ReportAllocs()
	b.ResetTimer()
	for tic := 0; tic < b.N; tic++ {
		now = now.Add(time.Second / 35)
		for i := 0; i < 4; i++ {
			m := wire.Cmd{Tic: uint32(tic), Cmd: wire.NewTicCmd(int8(tic), int8(i), 0, 0, 0, 0)}
			msg[i] = m.Append(msg[i][:0])
			sealed += len(c.GameMessage(ConnID(1+i), msg[i], now))
		}
		if tic%35 == 0 {
			c.Advance(now)
		}
	}
	b.StopTimer()
	if sealed != 4*b.N {
		b.Fatalf("%d sends for %d tics", sealed, b.N)
	}
}

// BenchmarkHistoryHour seals an hour of 4-player play at 35 Hz
// (126,000 tics) and reports the heap it holds: the memory per hour of
// history.
func BenchmarkHistoryHour(b *testing.B) {
	const tics = 35 * 3600
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c, now := wdBenchCore(b)
		msg := make([]byte, wire.CmdSize)
		for tic := 0; tic < tics; tic++ {
			now = now.Add(time.Second / 35)
			for i := 0; i < 4; i++ {
				msg = wire.Cmd{Tic: uint32(tic), Cmd: wire.NewTicCmd(int8(tic), int8(i), 0, 0, 0, 0)}.Append(msg[:0])
				c.GameMessage(ConnID(1+i), msg, now)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if c.Status().History != tics {
			b.Fatalf("history %d", c.Status().History)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heapMB/hour")
		b.ReportMetric(float64(c.session.history.Bytes())/1e6, "slabMB/hour")
		runtime.KeepAlive(c)
	}
}
