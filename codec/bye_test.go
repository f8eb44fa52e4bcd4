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
		// Trailing bytes after the detail are the caller's.
		if _, n, err := ParseBye(append(b, 0xEE)); err != nil || n != 4 {
			t.Fatalf("%v: with a trailing byte: %d, %v", r, n, err)
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
