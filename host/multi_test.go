package host_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/host"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/server"
)

// playRoom connects a player to room (none: "") of the host at addr and
// plays until tick until is verified; it returns the hash of that tick.
// seed picks its inputs, so rooms of different seeds play different
// worlds.
func playRoom(ctx context.Context, addr, room string, seed game.PlayerID, until uint32) (uint64, error) {
	var o rewind.UDPOptions
	o.Client.Room = room
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var hash uint64
	o.Client.OnVerified = func(tick uint32, h uint64) {
		if tick == until {
			hash = h
			cancel()
		}
	}
	s, err := rewind.ConnectUDP[testgame.Input](ctx, &testgame.Game{}, addr, o)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	s.SetInputFunc(func(tick uint32) testgame.Input { return testgame.Bot(seed, tick) })
	if err := s.Run(pctx); err != nil {
		return 0, err
	}
	if st := s.Stats(); st.Verified < until || st.Desyncs != 0 {
		return 0, fmt.Errorf("room %q: verified %d, desyncs %d", room, st.Verified, st.Desyncs)
	}
	return hash, nil
}

// TestMultiRooms hosts three rooms on one UDP socket, with two
// workers: two players in each room (chosen by the code in their hello)
// agree on the hash of tick 90, which differs between rooms whose players
// play differently; each room counts its own two players; a hello for a
// code no room has is refused (ReasonNoRoom); a hello without a code goes
// to the first room; a closed room frees its slot.
func TestMultiRooms(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{
		HostOptions: rewind.HostOptions{Server: server.Config{StartPlayers: 2}},
		MaxMatches:  3,
		Workers:     2,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	first, err := h.Open("k3f9qx") // lower case is upper-cased
	if err != nil || first != "K3F9QX" {
		t.Fatalf("Open(k3f9qx) = %q, %v", first, err)
	}
	codes := []string{first}
	for range 2 {
		c, err := h.Open("")
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, c)
	}
	if _, err := h.Open(""); !errors.Is(err, host.ErrTooManyMatches) {
		t.Errorf("a fourth room of 3: %v, want ErrTooManyMatches", err)
	}
	if _, err := h.Open("K3F9Q0"); !errors.Is(err, host.ErrBadRoom) {
		t.Errorf("a code with 0: %v, want ErrBadRoom", err)
	}
	addr, _ := h.UDPAddr()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()

	const until = 90
	type result struct {
		room int
		hash uint64
		err  error
	}
	results := make(chan result, 6)
	var wg sync.WaitGroup
	for i, code := range codes {
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				room := code
				if i == 0 && p == 1 {
					room = "" // no code: the first room
				}
				hash, err := playRoom(ctx, addr.String(), room, game.PlayerID(i*7), until)
				results <- result{i, hash, err}
			}()
		}
	}
	wg.Wait()
	close(results)
	hashes := map[int][]uint64{}
	for r := range results {
		if r.err != nil {
			t.Fatalf("room %d: %v", r.room, r.err)
		}
		hashes[r.room] = append(hashes[r.room], r.hash)
	}
	for i, hs := range hashes {
		if len(hs) != 2 || hs[0] != hs[1] {
			t.Errorf("room %d: hashes of tick %d %x, want two equal", i, until, hs)
		}
	}
	if hashes[0][0] == hashes[1][0] {
		t.Errorf("rooms 0 and 1 played different inputs but agree at tick %d", until)
	}
	for _, code := range codes {
		st, ok := h.RoomStats(code)
		if !ok || st.Total.Joins != 2 || st.Matches != 1 {
			t.Errorf("room %s: %+v (ok %v), want 2 joins in 1 match", code, st, ok)
		}
	}

	// A code no room has: refused.
	_, err = playRoom(ctx, addr.String(), "ZZZZZZ", 1, 10)
	var re *rewind.RefusedError
	if !errors.As(err, &re) || re.Reason != rewind.ReasonNoRoom {
		t.Errorf("join ZZZZZZ: %v, want refused (no such room)", err)
	}
	st := h.Stats()
	if st.Rooms != 3 || st.Matches != 3 || st.Total.Joins != 6 || st.NoRoom == 0 {
		t.Errorf("host stats: %+v", st)
	}
	if lag := h.TickLag(); lag.N() == 0 {
		t.Error("no tick lateness measured")
	}

	// Closing a room frees its slot.
	if err := h.CloseRoom(codes[2]); err != nil {
		t.Fatal(err)
	}
	if err := h.CloseRoom(codes[2]); !errors.Is(err, host.ErrNoRoom) {
		t.Errorf("closing it twice: %v, want ErrNoRoom", err)
	}
	if _, err := h.Open(codes[2]); err != nil {
		t.Errorf("reopening a closed room's code: %v", err)
	}
	if got := h.Rooms(); len(got) != 3 || got[0] != first {
		t.Errorf("rooms %v", got)
	}
}

// TestMultiFreeEnded: with FreeEnded, a room whose match ended (its
// last player left) closes by itself.
func TestMultiFreeEnded(t *testing.T) {
	testutil.SkipSockets(t)
	testutil.CheckGoroutines(t, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := host.ListenUDP[testgame.Input](&testgame.Game{}, "127.0.0.1:0", host.Options{FreeEnded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	code, err := h.Open("")
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := h.UDPAddr()
	stop := testutil.RunHost(ctx, t, h)
	defer stop()
	if _, err := playRoom(ctx, addr.String(), code, 1, 30); err != nil {
		t.Fatal(err)
	}
	testutil.WaitUntil(ctx, t, "the ended room to close", func() bool { return h.Stats().Rooms == 0 })
	if st := h.Stats(); st.Matches != 1 || st.Total.Leaves != 1 {
		t.Errorf("stats after the room closed: %+v", st)
	}
}
