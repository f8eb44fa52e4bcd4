package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// TestPlayRebasedPastUntil: a play --until-tick whose client is rebased
// past the tick (it fell further behind than the server keeps ticks, and
// its next world was the server's of a later tick: as a resync, a join
// into a running match or a migration's handoff does) never steps that
// tick itself; it stops there, done (errReached), its final line naming
// the tick it has and that tick's hash. Made-up time: a sand match
// hosted with 500 ms of History, the player starved 1.5 s. (It failed
// with "verified tick T is past --until-tick U, which this player never
// verified".)
func TestPlayRebasedPastUntil(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, start)
	net.SetDefaultLink(transport.LinkConfig{Latency: 10 * time.Millisecond})
	hconn, _ := net.Listen("host")
	m, err := migrate.Serve(sand.New(32), hconn, server.Config{History: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	host, err := rewind.Connect(sand.New(32), m.Conn, rewind.Options{})
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	host.Migration().Serve(m)
	defer host.Close()
	const until = 120
	var out bytes.Buffer
	loop := &playLoop{until: until, log: slog.New(slog.NewTextHandler(io.Discard, nil)), stdout: &out, timeout: time.Second}
	pconn, _ := net.Dial("player", "host")
	p, err := rewind.Connect(sand.New(32), pconn, rewind.Options{
		Client:   rewind.ClientConfig{OnVerified: loop.onVerified, OnDesync: loop.onDesync},
		OnUpdate: loop.onUpdate,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	loop.s = p
	p.SetInput(sand.Input{MoveY: 1, Pour: true, Material: sand.Water})
	now := start
	step := func(player bool) error {
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := host.Update(now); err != nil {
			t.Fatalf("host: %v", err)
		}
		if player {
			return p.Update(now)
		}
		return nil
	}
	for i := 0; p.Stats().Verified < until-30; i++ {
		if err := step(true); err != nil || i > 10000 {
			t.Fatalf("the player has not verified tick %d in 10 s: %v", until-30, err)
		}
	}
	for range 1500 { // the player starved 1.5 s: the host runs 90 ticks past its History
		step(false)
	}
	err = nil
	for i := 0; err == nil; i++ {
		if i > 10000 {
			t.Fatalf("the player has not stopped 10 s after it starved: %+v", p.Stats())
		}
		err = step(true)
	}
	st := p.Stats()
	if !errors.Is(err, errReached) {
		t.Fatalf("the rebased player stopped with %v, want done (errReached); %+v", err, st)
	}
	if st.Rebases == 0 {
		t.Fatalf("the player was not rebased: %+v", st)
	}
	tick, hash := loop.reached()
	if tick != st.Verified || tick <= until || hash != st.VerifiedHash {
		t.Errorf("reached tick %d hash %016x; the player's verified tick %d hash %016x, --until-tick %d", tick, hash, st.Verified, st.VerifiedHash, until)
	}
}
