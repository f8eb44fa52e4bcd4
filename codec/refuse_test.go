package codec

import "testing"

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
