package rewind_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/internal/facehook"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/internal/testutil"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestSessionMigrations drives a session through two host migrations in
// made-up time, with a Migrator that hands its work to the test: the
// relay's notice (ServerLost) starts the first; a late notice about the
// server left behind, arriving while the session migrates, does not start
// another once the session plays at the next server (it concerns the old
// one); the next server's own loss (Migrated.Lost) starts the second; and
// Close during that one waits for the Migrator, whose context ends, and
// closes the connection it returned.
func TestSessionMigrations(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	room := server.Room{Code: "ABCDEF", Key: "0123456789abcdef0123456789abcdef"}
	aconn, _ := net.Listen("a")
	defer aconn.Close()
	a, err := server.New[testgame.Input](&testgame.Game{}, aconn, server.Config{HostMigration: true, Room: room})
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := net.Dial("c", "a")
	s, err := rewind.Connect[testgame.Input](&testgame.Game{}, conn, rewind.Options{})
	if err != nil {
		t.Fatal(err)
	}
	facehook.Own(s)
	defer s.Close()
	type call struct {
		h   facehook.Handoff
		ctx context.Context
	}
	calls := make(chan call, 4)
	replies := make(chan facehook.Migrated[testgame.Input])
	madeAtEnd := make(chan transport.Conn, 1)
	facehook.SetMigrator(s, func(ctx context.Context, h facehook.Handoff) (facehook.Migrated[testgame.Input], error) {
		calls <- call{h, ctx}
		select {
		case m := <-replies:
			return m, nil
		case <-ctx.Done():
			// As if the move had just succeeded when the session closed.
			c, err := net.Dial("late", "b")
			if err != nil {
				return facehook.Migrated[testgame.Input]{}, err
			}
			madeAtEnd <- c
			return facehook.Migrated[testgame.Input]{Conn: c}, nil
		}
	})
	now := start
	var srv *server.Server[testgame.Input] = a
	run := func(d time.Duration) {
		t.Helper()
		for end := now.Add(d); now.Before(end); {
			now = now.Add(time.Millisecond)
			net.Advance(now)
			if err := srv.Update(now); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(now); err != nil {
				t.Fatal(err)
			}
		}
	}
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
	facehook.ServerLost(s)
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
	facehook.ServerLost(s) // late: the relay's notice about a, during the move
	replies <- facehook.Migrated[testgame.Input]{Conn: toB, Lost: lost}
	srv = b
	// The Migrator's goroutine hands its result over on its own time:
	// made-up time stands still until the session has it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()
	testutil.WaitUntil(ctx, t, "the session taking the Migrator's result", func() bool {
		if err := s.Update(now); err != nil {
			t.Fatal(err)
		}
		return s.Migrations() == 1
	})
	run(2 * time.Second)
	noCall("for a notice about the server left behind")
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
