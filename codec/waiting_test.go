package codec

import (
	"encoding/hex"
	"testing"
)

func TestWaiting(t *testing.T) {
	for _, m := range []Waiting{{}, {Tag: 3, Tick: 300, Players: 1 << 2}, {Tag: 255, Tick: 1<<32 - 1, Players: ^uint64(0)}} {
		b := checkMessage(t, &m, ParseWaiting)
		mustFail(t, "waiting as ping", b, ParsePing, ErrWrongType)
		b[0] |= 1
		mustFail(t, "flags", b, ParseWaiting, ErrMalformed)
	}
}

// TestWaitingGolden pins the bytes: tag 9, tick 300, waiting for players
// 2 and 5.
func TestWaitingGolden(t *testing.T) {
	m := Waiting{Tag: 9, Tick: 300, Players: 1<<2 | 1<<5}
	const want = "c009ac022400000000000000"
	if got := hex.EncodeToString(m.Append(nil)); got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if typ, tag, err := Peek(m.Append(nil)); err != nil || typ != TypeWaiting || tag != 9 {
		t.Fatalf("Peek: %v %d %v", typ, tag, err)
	}
}
