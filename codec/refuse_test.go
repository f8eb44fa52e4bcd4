package codec

import "testing"

func TestRefuse(t *testing.T) {
	for r := ReasonFull; r <= ReasonCookie; r++ {
		m := Refuse{Version: ProtocolVersion, Reason: r}
		b := checkMessage(t, &m, ParseRefuse)
		if r.String() == "" {
			t.Fatal("empty reason name")
		}
		b[7] = 0
		mustFail(t, "reason 0", b, ParseRefuse, ErrMalformed)
		b[7] = 99
		mustFail(t, "reason 99", b, ParseRefuse, ErrMalformed)
	}
}
