package client_test

import (
	"errors"
	"testing"

	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/codec/reliable"
	"github.com/rewindnet/rewind/internal/testgame"
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
