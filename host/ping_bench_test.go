package host_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// BenchmarkPingRTT measures the round trip a player's client measures
// (its Ping, sampled after each of its pings, every 20 ms) against a
// host.Multi on loopback whose socket is drained at the tick phases (the
// default) and one whose socket is read as datagrams arrive
// (Options.SocketReader), alternately in rounds of 2 s: what answering
// pings at the next phase adds to the ping. Run with -benchtime=1x (b.N
// is ignored).
func BenchmarkPingRTT(b *testing.B) {
	testutil.SkipSockets(b)
	const rounds = 4
	samples := map[bool][]time.Duration{}
	for range rounds {
		for _, reader := range []bool{false, true} {
			samples[reader] = append(samples[reader], pingSamples(b, reader, 2*time.Second)...)
		}
	}
	for _, reader := range []bool{false, true} {
		s := samples[reader]
		slices.Sort(s)
		name := "drained"
		if reader {
			name = "reader"
		}
		if len(s) == 0 {
			b.Fatalf("%s: no ping measured", name)
		}
		b.ReportMetric(float64(s[len(s)/2])/1e6, name+"-ping-ms-p50")
		b.ReportMetric(float64(s[len(s)*9/10])/1e6, name+"-ping-ms-p90")
		b.ReportMetric(float64(s[len(s)-1])/1e6, name+"-ping-ms-max")
	}
}

// pingSamples plays one player in a Multi (socket reader or drained) for
// d and returns the pings its client measured.
func pingSamples(b *testing.B, reader bool, d time.Duration) []time.Duration {
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{SocketReader: reader, MaxMatches: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	code, err := h.Open("")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	addr, _ := h.UDPAddr()
	var o rewind.UDPOptions
	o.Client.Room = code
	o.Client.PingInterval = 20 * time.Millisecond
	s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	pctx, stop := context.WithTimeout(ctx, d)
	defer stop()
	go s.Run(pctx)
	var out []time.Duration
	var last time.Duration
	time.Sleep(300 * time.Millisecond) // joined, the first pings answered
	for t := time.NewTicker(20 * time.Millisecond); pctx.Err() == nil; <-t.C {
		if p := s.Stats().Ping; p != last && p > 0 {
			out, last = append(out, p), p
		}
	}
	return out
}
