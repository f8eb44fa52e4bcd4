package roomcode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/codec"
)

func TestValid(t *testing.T) {
	for code, ok := range map[string]bool{"ABC234": true, "ZZZZZZ": true, "ABC23": false, "ABC2345": false,
		"ABC10O": false, "abc234": false, "ABCI23": false} {
		if Valid(code) != ok {
			t.Errorf("Valid(%q) = %v", code, !ok)
		}
	}
	for code, ok := range map[string]bool{"ABC234": true, "ABC2345": true, "ABCDEFGHJKLM": true,
		"ABCDEFGHJKLMN": false, "ABC23": false, "ABC23O": false} {
		if ValidLen(code) != ok {
			t.Errorf("ValidLen(%q) = %v", code, !ok)
		}
	}
}

func TestNew(t *testing.T) {
	rnd := bytes.NewReader(bytes.Repeat([]byte{0, 31, 32, 255}, 9))
	for _, n := range []int{0, 6, 9, 20} {
		code, err := New(rnd, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(max(n, Len), MaxLen); len(code) != want || !ValidLen(code) {
			t.Errorf("New(%d) = %q, want %d characters of the alphabet", n, code, want)
		}
	}
	if _, err := New(strings.NewReader("abc"), 6); err == nil {
		t.Error("New from a short reader did not fail")
	}
}

// TestHelloRoomSize: the room field of a Hello holds one code.
func TestHelloRoomSize(t *testing.T) {
	if codec.RoomCodeSize != Len {
		t.Errorf("codec.RoomCodeSize = %d, roomcode.Len = %d", codec.RoomCodeSize, Len)
	}
}
