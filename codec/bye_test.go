package codec

import "testing"

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
