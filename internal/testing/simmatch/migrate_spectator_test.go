package simmatch

import (
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/transport"
)

// TestSpectatorFollowsMigration: the match of TestHostMigration (2
// players, 5 % loss, 50 ms one way) with a spectator, and the host's
// process dies. The spectator was sent the handover data without the
// room's key and players (it can neither claim nor end the room); at the
// relay's notice it hands off from its last verified world, and once a
// player took the match over it watches again at the new host (in a
// room: by its code, roomclient.JoinAgain, after a round trip to the
// relay and one of signaling), which welcomes it as a spectator. It then
// verifies every tick the players verify, with the same hashes, having
// received far less than the world there (a delta of its world). A
// spectator watching 2 s behind (client.Config.SpectateDelay) hands off
// a world older than the one the new host resumes from, and follows with
// its delay kept.
func TestSpectatorFollowsMigration(t *testing.T) {
	for _, delay := range []time.Duration{0, 2 * time.Second} {
		t.Run("delay "+delay.String(), func(t *testing.T) { spectatorFollows(t, delay) })
	}
}

// spectatorFollows runs TestSpectatorFollowsMigration with a spectator
// watching delay behind.
func spectatorFollows(t *testing.T, delay time.Duration) {
	link := transport.LinkConfig{Latency: 50 * time.Millisecond, Loss: 0.05}
	r := newMigRig(t, 2, link)
	verified := map[uint32]uint64{}
	watch := func(name, srv string, h *client.Handoff) *client.Client[testgame.Input] {
		conn, err := r.net.Dial(name, srv)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		c, err := client.New[testgame.Input](&drift{}, conn, client.Config{Spectate: true, Resume: h, SpectateDelay: delay,
			OnVerified: func(tick uint32, hash uint64) { verified[tick] = hash }})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	spec := watch("spec", "host0", nil)
	for range 5000 { // 5 s of play
		r.step(time.Time{})
		if err := spec.Update(r.now); err != nil {
			t.Fatal(err)
		}
	}
	ho, ok := spec.Handover()
	if !ok || ho.Code != "MIG234" || ho.Key != "" || len(ho.Players) != 0 || ho.TickRate == 0 {
		t.Fatalf("the spectator's handover data: %+v (%v)", ho, ok)
	}
	diedAt, lastOld := r.now, r.old.Tick()
	r.dead = true
	r.oldConn.Close()
	noticeAt := diedAt.Add(link.Latency)
	var (
		h                  client.Handoff
		handedOff, watched bool
		watchAt            time.Time
	)
	for range 12000 {
		r.step(noticeAt)
		switch {
		case !handedOff:
			err := spec.Update(r.now)
			if err != nil && !errors.Is(err, client.ErrTimeout) && !errors.Is(err, client.ErrHostLeaving) {
				t.Fatalf("spectator: %v", err)
			}
			if err == nil && r.now.Before(noticeAt) {
				continue
			}
			if h, ok = spec.Handoff(); !ok {
				t.Fatal("the spectator cannot hand off")
			}
			handedOff = true
		case !watched:
			if r.next == nil {
				continue // no player hosts yet: the relay says room_busy
			}
			if watchAt.IsZero() {
				watchAt = r.now.Add(4 * link.Latency)
			}
			if r.now.Before(watchAt) {
				continue
			}
			spec, watched = watch("spec2", "host1", &h), true
		default:
			if err := spec.Update(r.now); err != nil {
				t.Fatalf("spectator after the migration: %v", err)
			}
		}
	}
	if !watched || r.next == nil {
		t.Fatalf("watched the new host: %v", watched)
	}
	if _, ok := spec.Player(); ok {
		t.Fatal("the spectator has a player id at the new host")
	}
	if st := r.next.Stats(); st.Spectators != 1 || st.Joins != 0 || st.Players != 2 {
		t.Fatalf("new host: %d spectators, %d joins, %d players", st.Spectators, st.Joins, st.Players)
	}
	ref := r.players[0].verified
	behind := uint32(delay.Seconds() * float64(ho.TickRate))
	if lag := r.next.Tick() - spec.Stats().Verified; lag < behind || lag > behind+30 {
		t.Fatalf("the spectator verified tick %d, %d behind the new host's %d: want %d to %d (its delay)", spec.Stats().Verified, lag, r.next.Tick(), behind, behind+30)
	}
	from, to := lastOld+200, r.next.Tick()-60-behind
	if to < from+100 {
		t.Fatalf("the new host ran to tick %d only (the old one to %d)", r.next.Tick(), lastOld)
	}
	for tick := from; tick < to; tick++ {
		got, ok := verified[tick]
		want, okRef := ref[tick]
		if !ok || !okRef || got != want {
			t.Fatalf("tick %d: spectator %x (%v), player 0 %x (%v)", tick, got, ok, want, okRef)
		}
	}
	// Everything it received at the new host (the world's pages that
	// differ, then the ticks): far less than the world. A world 2 s
	// older differs in every page (drift writes a new page each tick):
	// then the world once, not more.
	most := uint64(driftBytes / 4)
	if delay > 0 {
		most = driftBytes * 3 / 2
	}
	if st := spec.Stats(); st.BytesIn > most {
		t.Fatalf("the spectator received %d bytes at the new host (%d world bytes fetched), the world is %d", st.BytesIn, st.FetchBytes, driftBytes)
	}
	t.Logf("spectator %v behind: handed off at tick %d; at the new host received %d bytes (%d world bytes fetched) of a %d-byte world; verified %d..%d as player 0",
		delay, h.Tick, spec.Stats().BytesIn, spec.Stats().FetchBytes, driftBytes, from, to-1)
}
