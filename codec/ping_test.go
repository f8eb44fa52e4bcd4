package codec

import "testing"

func TestPingPong(t *testing.T) {
	for _, id := range []uint32{0, 1, 300, 1<<32 - 1} {
		p := Ping{Tag: 3, ID: id, Time: 0xdeadbeefcafe}
		b := checkMessage(t, &p, ParsePing)
		mustFail(t, "ping as pong", b, ParsePong, ErrWrongType)
		q := Pong{Tag: 3, ID: id, Time: 99}
		checkMessage(t, &q, ParsePong)
	}
}
