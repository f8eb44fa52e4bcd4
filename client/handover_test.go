package client_test

import (
	"errors"
	"github.com/rewindnet/rewind/transport"
	"testing"
	"time"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testing/testgame"
)

// TestClientKeepsNewestHandover: the client keeps the newest handover
// version (in wrapping order), ignores an older one, a malformed one and
// one with another tag, and reports a "goes on elsewhere" goodbye as
// ErrHostLeaving.
func TestClientKeepsNewestHandover(t *testing.T) {
	c, send, step := helloClient(t, &testgame.Game{})
	w := codec.Welcome{Player: 0, Tag: 7, TickRate: 60, HashBits: 16, Roster: make([]byte, 8)}
	send(w.Append(nil))
	first := codec.ServerTicks{Tag: 7, First: 1, Ack: reliable.Ack{Next: 1}, Ticks: []codec.TickBody{{Tick: 1, Body: tickBody(t)}}}
	send(first.Append(nil))
	if err := step(); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Handover(); ok {
		t.Fatal("a handover before any came")
	}
	ho := func(v uint32, code string) codec.Handover {
		return codec.Handover{Tag: 7, Version: v, TickRate: 60, Code: code,
			Players: []codec.HandoverPlayer{{ID: 0, Digests: make([][codec.HandoverDigestSize]byte, 1)}}}
	}
	held := func() codec.Handover {
		t.Helper()
		if err := step(); err != nil {
			t.Fatal(err)
		}
		m, _ := c.Handover()
		return m
	}
	m := ho(0xFFFFFFFF, "AAAAAA")
	send(m.Append(nil))
	if got := held(); got.Code != "AAAAAA" {
		t.Fatalf("held %+v", got)
	}
	m = ho(1, "BBBBBB") // newer in wrapping order
	send(m.Append(nil))
	if got := held(); got.Code != "BBBBBB" {
		t.Fatalf("held %+v after a newer one", got)
	}
	m = ho(0xFFFFFFFE, "CCCCCC") // older
	send(m.Append(nil))
	m = ho(5, "DDDDDD")
	bad := m.Append(nil)
	bad[len(bad)-9] = 0 // a player without digests: malformed
	send(bad)
	other := ho(6, "EEEEEE")
	other.Tag = 8
	send(other.Append(nil))
	bad0 := c.Stats().BadDatagrams
	if got := held(); got.Code != "BBBBBB" || got.Version != 1 {
		t.Fatalf("held %+v after an older, a malformed and a stray one", got)
	}
	if n := c.Stats().BadDatagrams - bad0; n != 2 {
		t.Fatalf("%d bad datagrams counted, want 2 (the malformed and the stray)", n)
	}
	if c.Stats().Handovers != 2 {
		t.Fatalf("Handovers = %d, want 2", c.Stats().Handovers)
	}
	bye := codec.NewBye(7, codec.ReasonMigrate)
	send(bye.Append(nil))
	err := step()
	if !errors.Is(err, client.ErrHostLeaving) || !errors.Is(err, client.ErrKicked) || c.ByeReason() != codec.ReasonMigrate {
		t.Fatalf("after the migrate goodbye: %v, %v", err, c.ByeReason())
	}
	if m, ok := c.Handover(); !ok || m.Code != "BBBBBB" {
		t.Fatal("the handover is gone after the goodbye")
	}
}

// TestResumedClientTakesNewServersHandover: a client that rejoins a match
// a new host took over (Config.Resume) carries the old server's handover
// data, and replaces it with the new server's first one whatever its
// version (each server counts its own versions, and the old data lists
// the digests of cookies the new server replaced); after that it keeps
// the newest again.
func TestResumedClientTakesNewServersHandover(t *testing.T) {
	st, err := client.NewSyncTest[testgame.Input](&testgame.Game{}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	ho := func(v uint32, code string) codec.Handover {
		return codec.Handover{Tag: 7, Version: v, TickRate: 60, Code: code,
			Players: []codec.HandoverPlayer{{ID: 0, Digests: make([][codec.HandoverDigestSize]byte, 1)}}}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	net := transport.NewSimNetwork(1, t0)
	srv, _ := net.Listen("server")
	defer srv.Close()
	conn, _ := net.Dial("c", "server")
	defer conn.Close()
	c, err := client.New[testgame.Input](&testgame.Game{}, conn, client.Config{
		Resume: &client.Handoff{World: st.World(), Handover: ho(40, "OLDOLD"), Cookie: [codec.CookieSize]byte{1}}})
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	held := func() codec.Handover {
		t.Helper()
		now = now.Add(time.Millisecond)
		net.Advance(now)
		if err := c.Update(now); err != nil {
			t.Fatal(err)
		}
		m, _ := c.Handover()
		return m
	}
	if got := held(); got.Code != "OLDOLD" {
		t.Fatalf("held %+v before the new server's", got)
	}
	send := func(m codec.Handover) { _ = srv.Send(conn.LocalAddr(), m.Append(nil)) }
	w := codec.Welcome{Player: 0, Tag: 7, TickRate: 60, HashBits: 16, Roster: make([]byte, 8)}
	_ = srv.Send(conn.LocalAddr(), w.Append(nil))
	if got := held(); got.Code != "OLDOLD" {
		t.Fatalf("held %+v after the new server's welcome", got)
	}
	send(ho(1, "NEWNEW")) // the new server's first: older by number
	if got := held(); got.Code != "NEWNEW" || got.Version != 1 {
		t.Fatalf("held %+v after the new server's first handover", got)
	}
	send(ho(0, "STALE0")) // older than the new server's first
	if got := held(); got.Code != "NEWNEW" {
		t.Fatalf("held %+v after an older one of the new server", got)
	}
	send(ho(2, "NEWER2"))
	if got := held(); got.Code != "NEWER2" {
		t.Fatalf("held %+v after a newer one", got)
	}
}
