package gateway_test

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/games/walkers"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/transport"
)

// processCPU returns the process's user and system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchJSONClients plays a walkers match of 60 Hz for ticks ticks with a
// rollback and a lockstep Go client over a loopback and n JSON clients
// that only count what they read (and send a destination a second), and
// returns the process CPU time, the JSON clients' bytes of tick messages
// and the Go clients' bytes in, counted from tick 60 on.
func benchJSONClients(b *testing.B, n int, ticks uint32) (cpu time.Duration, jsonTickBytes uint64, goBytes [2]uint64, window uint32) {
	lb := transport.NewLoopback()
	srvConn, err := lb.Listen("server")
	if err != nil {
		b.Fatal(err)
	}
	m := newMatch(b, 64, gateway.Config[walkers.Input]{}, srvConn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var st [2]client.Stats
	var waits []func() error
	for i, lockstep := range []bool{false, true} {
		conn, err := lb.Dial([]string{"rollback", "lockstep"}[i], "server")
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		waits = append(waits, goClientStats(ctx, b, conn, lockstep, map[uint32]uint64{}, &mu, &st[i]))
	}
	var tickBytes atomic.Uint64
	var wg sync.WaitGroup
	for i := range n {
		ws := dial(ctx, b, m.url)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ws.CloseNow()
			c := newJSONClient(b, ws)
			read := 0
			for ctx.Err() == nil {
				typ, msg, err := ws.Read(ctx)
				if err != nil || typ != websocket.MessageText {
					return
				}
				read++
				if read%60 == 2 {
					_ = c.goTo(ctx, float64(i%10), float64(read%20-10))
				}
				if bytes.HasPrefix(msg, []byte(`{"protocolVersion":2,"type":"tick"`)) {
					tickBytes.Add(uint64(len(msg)))
				}
			}
		}()
	}
	tickOf := func() uint32 { return m.host.Stats().Match.Tick }
	for tickOf() < 60 {
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	base := [2]uint64{st[0].BytesIn, st[1].BytesIn}
	mu.Unlock()
	t0, c0, j0 := tickOf(), processCPU(), tickBytes.Load()
	for tickOf() < ticks {
		time.Sleep(10 * time.Millisecond)
	}
	t1, c1, j1 := tickOf(), processCPU(), tickBytes.Load()
	mu.Lock()
	goBytes = [2]uint64{st[0].BytesIn - base[0], st[1].BytesIn - base[1]}
	mu.Unlock()
	cancel()
	wg.Wait()
	for _, w := range waits {
		_ = w()
	}
	m.stop()
	return c1 - c0, j1 - j0, goBytes, t1 - t0
}

// BenchmarkJSONvsBinary measures, in one walkers match at 60 Hz with a
// rollback and a lockstep Go client beside the JSON clients, the bytes a
// JSON client receives per tick (tick messages, WebSocket payload) against
// the binary protocol's (the Go clients' datagram bytes in per tick), and
// the process's CPU per JSON client per tick over what the same match
// costs without JSON clients. Real time: 10 s per run.
//
//	go test -run '^$' -bench JSONvsBinary -benchtime 1x ./gateway
func BenchmarkJSONvsBinary(b *testing.B) {
	for _, n := range []int{1, 8, 32} {
		b.Run(map[int]string{1: "json=1", 8: "json=8", 32: "json=32"}[n], func(b *testing.B) {
			for range b.N {
				const ticks = 660
				base, _, _, bw := benchJSONClients(b, 0, ticks)
				cpu, jb, gb, w := benchJSONClients(b, n, ticks)
				extra := float64(cpu) - float64(base)*float64(w)/float64(bw)
				b.ReportMetric(float64(jb)/float64(n)/float64(w), "json_B/client/tick")
				b.ReportMetric(float64(gb[0])/float64(w), "rollback_B/client/tick")
				b.ReportMetric(float64(gb[1])/float64(w), "lockstep_B/client/tick")
				b.ReportMetric(extra/1e3/float64(n)/float64(w), "cpu_µs/json_client/tick")
			}
		})
	}
}
