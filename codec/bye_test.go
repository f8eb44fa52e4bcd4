package codec

import (
	"encoding/hex"
	"errors"
	"io"
	"testing"
)

func TestBye(t *testing.T) {
	for r := ReasonNone; r <= maxReason; r++ {
		m := Bye{Tag: 7, Reason: r}
		b := checkMessage(t, &m, ParseBye)
		b[2] = byte(maxReason) + 1
		mustFail(t, "reason", b, ParseBye, ErrMalformed)
		b[0] |= 1
		mustFail(t, "flags", b, ParseBye, ErrMalformed)
	}
}

// TestByeGolden pins the bytes of every goodbye reason: the four the
// match's end or a host migration sends and the older ones.
func TestByeGolden(t *testing.T) {
	for _, c := range []struct {
		r    Reason
		want string
	}{
		{ReasonNone, "a00900"},
		{ReasonTimeout, "a00905"},
		{ReasonShutdown, "a00906"},  // server left, match over
		{ReasonKicked, "a00907"},    // kicked
		{ReasonEnded, "a0090608"},   // match ended on purpose
		{ReasonMigrate, "a0090609"}, // server leaving, match goes on elsewhere
	} {
		m := NewBye(9, c.r)
		b := m.Append(nil)
		if got := hex.EncodeToString(b); got != c.want {
			t.Errorf("%v: %s, want %s", c.r, got, c.want)
		}
		got, n, err := ParseBye(b)
		if err != nil || n != len(b) || got != m || got.Why() != c.r {
			t.Errorf("%v: parse = %+v, %d, %v", c.r, got, n, err)
		}
		if m.Length() != len(b) {
			t.Errorf("%v: Length %d, encoding %d", c.r, m.Length(), len(b))
		}
	}
}

// TestByeDetail checks the detail byte: every truncation below the base
// reason fails, the base alone is what a receiver of before the detail
// reads (backward compatible), and a detail that does not fit its base
// is refused.
func TestByeDetail(t *testing.T) {
	for _, r := range []Reason{ReasonEnded, ReasonMigrate} {
		m := NewBye(3, r)
		b := m.Append(nil)
		for i := range 3 {
			if _, _, err := ParseBye(b[:i]); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%v: truncated to %d: %v", r, i, err)
			}
		}
		old, n, err := ParseBye(b[:3])
		if err != nil || n != 3 || old.Reason != ReasonShutdown || old.Detail != 0 {
			t.Fatalf("%v: the base alone = %+v, %d, %v", r, old, n, err)
		}
		// What the first version's decoder did: read three bytes, ignore
		// the rest. The base reason is one it knows.
		if old.Reason > maxReason {
			t.Fatalf("%v: base %v unknown to old receivers", r, old.Reason)
		}
		// After the detail: the last tick (version 3); a varint cut
		// short is a truncation.
		if m, n, err := ParseBye(append(b, 0x05)); err != nil || n != 5 || !m.HasLast || m.Last != 5 {
			t.Fatalf("%v: with a last tick: %+v, %d, %v", r, m, n, err)
		}
		if _, _, err := ParseBye(append(b, 0xEE)); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("%v: with a cut varint: %v", r, err)
		}
		bad := append([]byte(nil), b...)
		bad[2] = byte(ReasonKicked)
		mustFail(t, "detail after another base", bad, ParseBye, ErrMalformed)
		bad[2], bad[3] = byte(ReasonShutdown), 0
		mustFail(t, "zero detail", bad, ParseBye, ErrMalformed)
		bad[3] = byte(ReasonKicked)
		mustFail(t, "base reason as detail", bad, ParseBye, ErrMalformed)
		bad[3] = byte(maxDetail) + 1
		mustFail(t, "unknown detail", bad, ParseBye, ErrMalformed)
	}
	if NewBye(1, ReasonKicked) != (Bye{Tag: 1, Reason: ReasonKicked}) {
		t.Fatal("NewBye of a base reason has a detail")
	}
}

// TestByeLast checks the last tick after the detail (version 3): it
// round-trips, its golden bytes, every truncation inside the varint is
// refused, a receiver of version 2 reads the first four bytes as the
// same goodbye, and a last tick without a detail is not sent.
func TestByeLast(t *testing.T) {
	for _, last := range []uint32{0, 1, 127, 128, 3600, 1<<32 - 1} {
		m := NewBye(4, ReasonEnded)
		m.HasLast, m.Last = true, last
		b := m.Append(nil)
		if len(b) != m.Length() {
			t.Fatalf("last %d: Length %d, encoding %d", last, m.Length(), len(b))
		}
		got, n, err := ParseBye(b)
		if err != nil || n != len(b) || got != m {
			t.Fatalf("last %d: parse = %+v, %d, %v", last, got, n, err)
		}
		for i := 5; i < len(b); i++ {
			if _, _, err := ParseBye(b[:i]); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("last %d: truncated to %d: %v", last, i, err)
			}
		}
		if v2, n, err := ParseBye(b[:4]); err != nil || n != 4 || v2.Why() != ReasonEnded || v2.HasLast {
			t.Fatalf("last %d: the version-2 part = %+v, %d, %v", last, v2, n, err)
		}
	}
	m := NewBye(9, ReasonEnded)
	m.HasLast, m.Last = true, 3600
	if got := hex.EncodeToString(m.Append(nil)); got != "a0090608901c" {
		t.Fatalf("golden: %s", got)
	}
	mustFail(t, "non-minimal last", []byte{0xa0, 9, 6, 8, 0x80, 0}, ParseBye, ErrMalformed)
	mustFail(t, "last over 32 bits", []byte{0xa0, 9, 6, 8, 0xff, 0xff, 0xff, 0xff, 0x7f}, ParseBye, ErrMalformed)
	k := Bye{Tag: 1, Reason: ReasonShutdown, HasLast: true, Last: 7}
	if b := k.Append(nil); len(b) != 3 || k.Length() != 3 {
		t.Fatalf("a last tick without a detail: %x (Length %d)", b, k.Length())
	}
}

// TestByeOperator checks the operator's mark after the last tick (version
// 4): NewBye(ReasonOperator) is ReasonEnded's goodbye with the mark, its
// golden bytes, Why names the operator, a receiver of version 3 (which
// reads up to the last tick) sees ReasonEnded with the same last tick,
// and a byte after the last tick other than the mark is left unread.
func TestByeOperator(t *testing.T) {
	m := NewBye(9, ReasonOperator)
	m.HasLast, m.Last = true, 3600
	b := m.Append(nil)
	if got := hex.EncodeToString(b); got != "a0090608901c01" {
		t.Fatalf("golden: %s", got)
	}
	if m.Length() != len(b) {
		t.Fatalf("Length %d, encoding %d", m.Length(), len(b))
	}
	got, n, err := ParseBye(b)
	if err != nil || n != len(b) || got != m || got.Why() != ReasonOperator {
		t.Fatalf("parse = %+v, %d, %v (why %v)", got, n, err, got.Why())
	}
	if v3, n, err := ParseBye(b[:6]); err != nil || n != 6 || v3.Why() != ReasonEnded || !v3.HasLast || v3.Last != 3600 {
		t.Fatalf("the version-3 part = %+v, %d, %v", v3, n, err)
	}
	other := append(b[:6:6], 0x02)
	if g, n, err := ParseBye(other); err != nil || n != 6 || g.Operator || g.Why() != ReasonEnded {
		t.Fatalf("another byte after the last tick = %+v, %d, %v", g, n, err)
	}
	// Without a last tick the mark cannot go: the goodbye says ReasonEnded.
	noLast := NewBye(9, ReasonOperator)
	if b := noLast.Append(nil); hex.EncodeToString(b) != "a0090608" || noLast.Length() != 4 {
		t.Fatalf("without a last tick: %x (Length %d)", b, noLast.Length())
	}
	if ReasonOperator.String() != "ended by the operator" {
		t.Fatalf("String: %q", ReasonOperator)
	}
}
