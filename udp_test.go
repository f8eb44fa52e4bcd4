package rewind_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport/udp"
)

// TestHostUDPMatchesAndRestarts plays two players over UDP on 127.0.0.1
// with ConnectUDP and Session.Run, checks their verified ticks against the
// host's, and sees the host start a new match once both have left.
func TestHostUDPMatchesAndRestarts(t *testing.T) {
	testutil.SkipSockets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hashes := testutil.NewHostHashes()
	var opts rewind.HostOptions
	opts.Server = server.Config{StartPlayers: 2, OnTick: hashes.OnTick}
	h, err := rewind.HostUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	addr, ok := h.UDPAddr()
	if !ok {
		t.Fatal("HostUDP: no UDP address")
	}
	stopHost := testutil.RunHost(ctx, t, h)

	sock := h.Conn().(*udp.Server)
	var unproven atomic.Int64
	unproven.Store(-1)
	const until = 60
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			var o rewind.UDPOptions
			var s *rewind.Session[testgame.Input]
			pctx, pcancel := context.WithCancel(ctx)
			defer pcancel()
			checked := 0
			o.Client.OnVerified = func(tick uint32, hash uint64) {
				if sh := hashes.Hash(tick); sh != hash {
					errs <- fmt.Errorf("tick %d: %016x, host %016x", tick, hash, sh)
					pcancel()
				}
				if tick == until/2 {
					// Both players are in: the match proved their sessions.
					unproven.Store(int64(sock.Unproven()))
				}
				if checked++; tick >= until {
					pcancel()
				}
			}
			s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), o)
			if err != nil {
				errs <- err
				return
			}
			s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(3, tick) })
			if err := s.Run(pctx); err != nil {
				errs <- err
				return
			}
			if st := s.Stats(); st.Verified < until || st.Desyncs != 0 {
				errs <- fmt.Errorf("verified %d, desyncs %d", st.Verified, st.Desyncs)
				return
			}
			errs <- s.Close()
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := unproven.Load(); n != 0 {
		t.Errorf("%d unproven UDP sessions in a running match of two, want 0", n)
	}
	testutil.WaitUntil(ctx, t, "the match to end after both players left", func() bool {
		st := h.Stats()
		return !st.Running && st.Total.Leaves >= 2
	})
	if st := h.Stats(); st.Matches != 1 || st.Total.Joins != 2 || st.Match.Players != 0 {
		t.Errorf("host stats after the match: %+v", st)
	}
	// The next two players start a new match.
	var o rewind.UDPOptions
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	o.Client.OnVerified = func(tick uint32, hash uint64) {
		if tick >= 10 {
			pcancel()
		}
	}
	s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), o)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), o)
	if err != nil {
		t.Fatal(err)
	}
	go s2.Run(pctx)
	if err := s.Run(pctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2.Close()
	if st := h.Stats(); st.Matches != 2 || st.Total.Joins != 4 {
		t.Errorf("after a second match: %d matches, %d joins; want 2 and 4", st.Matches, st.Total.Joins)
	}
	stopHost()
}

// ExampleHostUDP hosts a match on a UDP port and plays it from a client
// that connects by address, until the client has verified tick 30.
func ExampleHostUDP() {
	host, err := rewind.HostUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", rewind.HostOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer host.Close()
	addr, _ := host.UDPAddr() // a Host over UDP has one
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go host.Run(ctx)

	var opts rewind.UDPOptions
	verified := make(chan uint64, 1)
	opts.Client.OnVerified = func(tick uint32, hash uint64) {
		if tick == 30 {
			verified <- hash
			cancel()
		}
	}
	s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr.String(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	s.SetInput(testgame.Input{DX: 1})
	if err := s.Run(ctx); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-verified:
		fmt.Println("verified tick 30")
	default:
		fmt.Println("timed out")
	}
	// Output: verified tick 30
}
