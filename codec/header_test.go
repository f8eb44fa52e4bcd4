package codec

import (
	"errors"
	"io"
	"testing"

	"github.com/rewindnet/rewind/codec/inputs"
)

func TestPeek(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		typ  Type
		tag  uint8
		want error
	}{
		{(&Hello{Game: 1}).Append(nil), TypeHello, 0, nil},
		{(&Welcome{Tag: 4, TickRate: 60}).Append(nil), TypeWelcome, 0, nil},
		{(&Refuse{Reason: ReasonFull}).Append(nil), TypeRefuse, 0, nil},
		{(&Bye{Tag: 9}).Append(nil), TypeBye, 9, nil},
		{(&Ping{Tag: 3}).Append(nil), TypePing, 3, nil},
		{[]byte{0x20}, 0, 0, io.ErrUnexpectedEOF},
		{[]byte{0xF5, 'R', 'W', 'N'}, 0, 0, io.ErrUnexpectedEOF},
		{[]byte{0xF5, 'R', 'W', 'X', 0xF1}, 0, 0, ErrBadMagic},
		{[]byte{0xF5, 'R', 'W', 'N', 0xF7}, 0, 0, ErrUnknownType},
		{[]byte{0x00, 1}, 0, 0, ErrUnknownType},
		{[]byte{0xB0, 1}, TypeHandover, 1, nil},
		{[]byte{0xC0, 1}, TypeWaiting, 1, nil},
		{[]byte{0xD0, 1}, TypeChat, 1, nil},
		{[]byte{0xE0, 1}, TypeModule, 1, nil},
	} {
		typ, tag, err := Peek(c.b)
		if !errors.Is(err, c.want) || (c.want == nil && (typ != c.typ || tag != c.tag)) {
			t.Errorf("Peek(%x) = %v, %d, %v; want %v, %d, %v", c.b, typ, tag, err, c.typ, c.tag, c.want)
		}
	}
	for ty := TypeClientInputs; ty <= TypeModule; ty++ {
		if ty.String() == "" || ty.String()[0] == 'T' {
			t.Errorf("type %d has no name", ty)
		}
	}
}

func TestExpandTick(t *testing.T) {
	for _, c := range []struct {
		low  uint16
		near uint32
		want uint32
	}{
		{100, 100, 100},
		{0xFFFF, 0x10001, 0xFFFF},
		{2, 0xFFFE, 0x10002},
		{0x8000, 0, 0xFFFF8000}, // half a window below 0 wraps
		{0x7FFF, 0, 0x7FFF},
		{5, 0xFFFFFFFE, 5}, // uint32 wrap
	} {
		if got := ExpandTick(c.low, c.near); got != c.want {
			t.Errorf("ExpandTick(%#x, %#x) = %#x, want %#x", c.low, c.near, got, c.want)
		}
	}
	if CheckWindow(10, 5, 20) != nil || !errors.Is(CheckWindow(21, 5, 20), ErrTickWindow) || !errors.Is(CheckWindow(4, 5, 20), ErrTickWindow) {
		t.Fatal("CheckWindow")
	}
	if CheckWindow(2, 0xFFFFFFF0, 5) != nil {
		t.Fatal("CheckWindow across the wrap")
	}
}

func TestVersionZero(t *testing.T) {
	b := (&Hello{Game: 1}).Append(nil)
	b[5], b[6] = 0, 0
	if _, _, err := ParseHello(b); !errors.Is(err, ErrVersion) {
		t.Fatalf("version 0: %v", err)
	}
	w := (&Welcome{Version: ProtocolVersion + 1, Tag: 1, TickRate: 60}).Append(nil)
	if _, _, err := ParseWelcome(w); !errors.Is(err, ErrVersion) {
		t.Fatalf("welcome of another version: %v", err)
	}
}

func TestRosterSnapshotBad(t *testing.T) {
	it, _ := testInputs(t, 0)
	enc := NewTickEncoder(it.Schema, 8)
	enc.Join(1)
	enc.AppendTick(nil, 0)
	snap := enc.Roster().AppendSnapshot(nil)
	r := NewRoster(it.Schema)
	if err := r.ParseSnapshot(append(append([]byte{}, snap...), 0)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("trailing byte: %v", err)
	}
	bad := append([]byte{}, snap...)
	bad[8+4] = 9 // Weapon (enum 0..7, packed at offset 4) = 9
	if err := r.ParseSnapshot(bad); !errors.Is(err, inputs.ErrBadEnum) {
		t.Fatalf("bad enum: %v", err)
	}
	bad = append([]byte{}, snap...)
	bad[8+it.Size()+4*4+2*it.NumFields()-1] = 64 // the last field's shift, beyond its width
	if err := r.ParseSnapshot(bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bad shift: %v", err)
	}
	if r.Present() != 0 {
		t.Fatal("failed parse changed the roster")
	}
}
