package rewind_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/internal/testing/testutil"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// migratingSession returns a session of testgame playing at server a
// (HostMigration, in room) over a simulated network in made-up time from
// start; both close at the test's end.
func migratingSession(t *testing.T) (start time.Time, net *transport.SimNetwork, room server.Room,
	a *server.Server[testgame.Input], s *rewind.Session[testgame.Input]) {
	t.Helper()
	start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net = transport.NewSimNetwork(1, start)
	room = server.Room{Code: "ABCDEF", Key: "0123456789abcdef0123456789abcdef"}
	aconn, _ := net.Listen("a")
	t.Cleanup(func() { aconn.Close() })
	a, err := server.New[testgame.Input](&testgame.Game{}, aconn, server.Config{HostMigration: true, Room: room})
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := net.Dial("c", "a")
	if s, err = rewind.Connect[testgame.Input](&testgame.Game{}, conn, rewind.Options{}); err != nil {
		t.Fatal(err)
	}
	s.Migration().Own()
	t.Cleanup(func() { s.Close() })
	return start, net, room, a, s
}

// runMigrating runs the network, the server *srv and the session s a
// millisecond at a time for d from *now.
func runMigrating(t *testing.T, net *transport.SimNetwork, now *time.Time, srv **server.Server[testgame.Input], s *rewind.Session[testgame.Input], d time.Duration) {
	t.Helper()
	for end := now.Add(d); now.Before(end); {
		*now = now.Add(time.Millisecond)
		net.Advance(*now)
		if err := (*srv).Update(*now); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(*now); err != nil {
			t.Fatalf("the session at %v: %v", *now, err)
		}
	}
}

// waitMigrations updates s at now until it counts n migrations: the
// Migrator's goroutine hands its result over on its own time, and
// made-up time stands still until the session has it.
func waitMigrations(t *testing.T, s *rewind.Session[testgame.Input], now time.Time, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()
	testutil.WaitUntil(ctx, t, "the session taking the Migrator's result", func() bool {
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
		return s.Migrations() == n
	})
}

// TestSessionMigrations drives a session through two host migrations in
// made-up time, with a Migrator that hands its work to the test: the
// relay's notice (ServerLost) starts the first; a late notice about the
// server left behind, arriving while the session migrates or after it
// moved, does not start another once the session plays at the next
// server (it concerns the old one); the next server's own loss (Migrated.Lost) starts the second; and
// Close during that one waits for the Migrator, whose context ends, and
// closes the connection it returned.
func TestSessionMigrations(t *testing.T) {
	start, net, room, a, s := migratingSession(t)
	type call struct {
		h   client.Handoff
		ctx context.Context
	}
	calls := make(chan call, 4)
	replies := make(chan migrate.Migrated[testgame.Input])
	madeAtEnd := make(chan transport.Conn, 1)
	s.Migration().SetMigrator(func(ctx context.Context, h client.Handoff) (migrate.Migrated[testgame.Input], error) {
		calls <- call{h, ctx}
		select {
		case m := <-replies:
			return m, nil
		case <-ctx.Done():
			// As if the move had just succeeded when the session closed.
			c, err := net.Dial("late", "b")
			if err != nil {
				return migrate.Migrated[testgame.Input]{}, err
			}
			madeAtEnd <- c
			return migrate.Migrated[testgame.Input]{Conn: c}, nil
		}
	})
	now := start
	var srv *server.Server[testgame.Input] = a
	run := func(d time.Duration) { t.Helper(); runMigrating(t, net, &now, &srv, s, d) }
	nextCall := func() call {
		t.Helper()
		select {
		case c := <-calls:
			return c
		case <-time.After(10 * time.Second): // a hang guard
			t.Fatal("the Migrator was not called")
		}
		return call{}
	}
	noCall := func(when string) {
		t.Helper()
		select {
		case <-calls:
			t.Fatalf("the Migrator was called %s", when)
		default:
		}
	}

	run(2 * time.Second)
	id, ok := s.Player()
	if !ok || s.State() != rewind.Playing || s.Stats().Verified == 0 {
		t.Fatalf("before the first migration: player %d (%v), %v, %+v", id, ok, s.State(), s.Stats())
	}
	s.Migration().ServerLost()
	run(time.Millisecond)
	if s.State() != rewind.Migrating {
		t.Fatalf("after ServerLost: %v, want migrating", s.State())
	}
	first := nextCall()
	bconn, _ := net.Listen("b")
	defer bconn.Close()
	h := first.h
	b, err := server.New[testgame.Input](&testgame.Game{}, bconn, server.Config{HostMigration: true, Room: room,
		Resume: &server.Resume{Tick: h.Tick, World: h.World, Roster: h.Roster, Handover: h.Handover}})
	if err != nil {
		t.Fatal(err)
	}
	toB, _ := net.Dial("c2", "b")
	lost := make(chan struct{})
	s.Migration().ServerLost() // late: the relay's notice about a, during the move
	replies <- migrate.Migrated[testgame.Input]{Conn: toB, Lost: lost}
	srv = b
	waitMigrations(t, s, now, 1)
	run(2 * time.Second)
	noCall("for a notice about the server left behind")
	s.Migration().ServerLost() // later still: about a, after the move
	run(time.Second)
	noCall("for a notice about the server left behind, after the move")
	if got, _ := s.Player(); s.Migrations() != 1 || s.State() != rewind.Playing || got != id || s.Stats().Verified <= h.Tick {
		t.Fatalf("after the first migration: %d migrations, %v, player %d (was %d), %+v", s.Migrations(), s.State(), got, id, s.Stats())
	}

	close(lost)
	run(time.Millisecond)
	second := nextCall()
	if s.State() != rewind.Migrating || second.h.Tick <= h.Tick {
		t.Fatalf("after Migrated.Lost: %v, handoff at tick %d (first at %d)", s.State(), second.h.Tick, h.Tick)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if second.ctx.Err() == nil {
		t.Fatal("the Migrator's context did not end with the session")
	}
	late := <-madeAtEnd
	if err := late.Send("sim:b", []byte("x")); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("the connection the Migrator made as the session closed: Send %v, want closed", err)
	}
}

// TestSessionRejoinsWhenCookieRefused: the next server's handover data
// lacks the cookie the session's client resumes with (its claimer's data
// was older than this player's welcome): that server refuses it "bad
// cookie", and the session joins the match there as a new player over
// the same connection instead of failing; it plays on, one move counted.
func TestSessionRejoinsWhenCookieRefused(t *testing.T) {
	start, net, room, a, s := migratingSession(t)
	handoffs := make(chan client.Handoff, 1)
	replies := make(chan migrate.Migrated[testgame.Input], 1)
	s.Migration().SetMigrator(func(ctx context.Context, h client.Handoff) (migrate.Migrated[testgame.Input], error) {
		handoffs <- h
		return <-replies, nil
	})
	now := start
	srv := a
	run := func(d time.Duration) { t.Helper(); runMigrating(t, net, &now, &srv, s, d) }
	run(2 * time.Second)
	id, _ := s.Player()
	s.Migration().ServerLost()
	run(time.Millisecond)
	h := <-handoffs
	ho := h.Handover
	ho.Players = nil // the claimer's data: older than this player's welcome
	bconn, _ := net.Listen("b")
	defer bconn.Close()
	b, err := server.New[testgame.Input](&testgame.Game{}, bconn, server.Config{HostMigration: true, Room: room,
		Resume: &server.Resume{Tick: h.Tick, World: h.World, Roster: h.Roster, Handover: ho}})
	if err != nil {
		t.Fatal(err)
	}
	toB, _ := net.Dial("c2", "b")
	replies <- migrate.Migrated[testgame.Input]{Conn: toB}
	srv = b
	waitMigrations(t, s, now, 1)
	run(3 * time.Second)
	got, ok := s.Player()
	if !ok || s.State() != rewind.Playing || s.Migrations() != 1 || s.Stats().Verified <= h.Tick+60 {
		t.Fatalf("after the refused cookie: player %d (%v; was %d), %v, %d migrations, %+v", got, ok, id, s.State(), s.Migrations(), s.Stats())
	}
	t.Logf("player %d before the move, %d after; verified tick %d (handoff at %d)", id, got, s.Stats().Verified, h.Tick)
}
