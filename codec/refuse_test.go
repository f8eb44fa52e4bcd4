package codec

import (
	"io"
	"testing"
)

func TestRefuse(t *testing.T) {
	for _, r := range []Reason{ReasonFull, ReasonProtocol, ReasonGame, ReasonCookie, ReasonNoRoom} {
		m := Refuse{Version: ProtocolVersion, Reason: r}
		b := checkMessage(t, &m, ParseRefuse)
		if r.String() == "" {
			t.Fatal("empty reason name")
		}
		b[7] = 0
		mustFail(t, "reason 0", b, ParseRefuse, ErrMalformed)
		b[7] = 99
		mustFail(t, "reason 99", b, ParseRefuse, ErrMalformed)
		b[7] = byte(ReasonMigrate)
		mustFail(t, "a goodbye-only reason", b, ParseRefuse, ErrMalformed)
	}
}

// TestRefuseGame: a Refuse names the server's game after its reason;
// a client of before the name reads its first 8 bytes alike; a name
// that is empty, too long or not printable ASCII is left out by Append
// and refused by ParseRefuse.
func TestRefuseGame(t *testing.T) {
	m := Refuse{Version: ProtocolVersion, Reason: ReasonGame, Game: "ships"}
	b := m.Append(nil)
	if len(b) != m.Length() || len(b) != 8+1+5 || b[8] != 5 || string(b[9:]) != "ships" {
		t.Fatalf("encoding % x (Length %d)", b, m.Length())
	}
	if got, n, err := ParseRefuse(b); err != nil || n != len(b) || got != m {
		t.Fatalf("round trip: %+v, %d, %v", got, n, err)
	}
	for i := 9; i < len(b); i++ { // the name cut: its length byte says more
		mustFail(t, "a name cut short", b[:i], ParseRefuse, io.ErrUnexpectedEOF)
	}
	old := Refuse{Version: ProtocolVersion, Reason: ReasonGame}
	if string(old.Append(nil)) != string(b[:8]) {
		t.Fatal("the first 8 bytes differ from a Refuse without a name")
	}
	if got, n, err := ParseRefuse(b[:8]); err != nil || n != 8 || got != old {
		t.Fatalf("without the name: %+v, %d, %v", got, n, err)
	}
	for _, bad := range []string{"", "two words", string(make([]byte, MaxGameName+1)), "caf\xc3\xa9"} {
		if e := (&Refuse{Reason: ReasonGame, Game: bad}).Append(nil); len(e) != 8 {
			t.Errorf("name %q: encoded % x, want it left out", bad, e)
		}
		raw := append(append(old.Append(nil), byte(len(bad))), bad...)
		if _, _, err := ParseRefuse(raw); err == nil {
			t.Errorf("name %q parsed", bad)
		}
	}
}
