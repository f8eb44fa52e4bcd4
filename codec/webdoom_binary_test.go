package codec

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestWebDoomTicCmdFields(t *testing.T) {
	c := NewWebDoomTicCmd(-25, 40, -1280, 0x1234, 'x', 0x83)
	if c.ForwardMove() != -25 || c.SideMove() != 40 || c.AngleTurn() != -1280 ||
		c.Consistancy() != 0x1234 || c.ChatChar() != 'x' || c.Buttons() != 0x83 {
		t.Fatalf("fields of %x read back wrong", c)
	}
	// Layout: int8, int8, int16 LE, int16 LE, u8, u8.
	want := []byte{0xe7, 40, 0x00, 0xfb, 0x34, 0x12, 'x', 0x83}
	if !bytes.Equal(c[:], want) {
		t.Fatalf("bytes %x, want %x", c, want)
	}
}

func TestWebDoomCmdRoundTrip(t *testing.T) {
	m := WebDoomCmd{Tic: 0x01020304, Cmd: NewWebDoomTicCmd(1, 2, 3, 4, 5, 6)}
	b := m.Append(nil)
	if len(b) != m.Length() || len(b) != 12 {
		t.Fatalf("len %d, Length %d", len(b), m.Length())
	}
	if !bytes.Equal(b[:4], []byte{4, 3, 2, 1}) {
		t.Fatalf("tic not little-endian: %x", b[:4])
	}
	got, n, err := ParseWebDoomCmd(append(b, 0xff))
	if err != nil || n != 12 || got != m {
		t.Fatalf("parse: %+v %d %v", got, n, err)
	}
	for i := 0; i < 12; i++ {
		if _, _, err := ParseWebDoomCmd(b[:i]); !errors.Is(err, ErrWebDoomTruncated) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	if _, err := DecodeWebDoomCmdMessage(append(b, 0)); !errors.Is(err, ErrWebDoomSize) {
		t.Fatalf("13-byte message: %v", err)
	}
	if _, err := DecodeWebDoomCmdMessage(b[:11]); !errors.Is(err, ErrWebDoomSize) {
		t.Fatalf("11-byte message: %v", err)
	}
	if got, err := DecodeWebDoomCmdMessage(b); err != nil || got != m {
		t.Fatalf("decode: %+v %v", got, err)
	}
}

func TestWebDoomBundleRoundTrip(t *testing.T) {
	m := WebDoomBundle{Tic: 77, InGame: 0b1011, Fabricated: 0b0110}
	for i := range m.Cmds {
		m.Cmds[i] = NewWebDoomTicCmd(int8(i), int8(-i), int16(i*256), 0, 0, uint8(i))
	}
	b := m.Append(nil)
	if len(b) != m.Length() || len(b) != 38 {
		t.Fatalf("len %d, Length %d", len(b), m.Length())
	}
	if b[4] != 0b1011 || b[5] != 0b0110 || !bytes.Equal(b[6+8*2:6+8*3], m.Cmds[2][:]) {
		t.Fatalf("layout: %x", b)
	}
	got, n, err := ParseWebDoomBundle(b)
	if err != nil || n != 38 || got != m {
		t.Fatalf("parse: %+v %d %v", got, n, err)
	}
	for i := 0; i < 38; i++ {
		if _, _, err := ParseWebDoomBundle(b[:i]); !errors.Is(err, ErrWebDoomTruncated) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	if _, err := DecodeWebDoomBundleMessage(append(b, 0)); !errors.Is(err, ErrWebDoomSize) {
		t.Fatalf("39 bytes: %v", err)
	}
}

func FuzzParseWebDoomCmd(f *testing.F) {
	f.Add(WebDoomCmd{Tic: 5, Cmd: NewWebDoomTicCmd(1, 2, 3, 4, 5, 6)}.Append(nil))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseWebDoomCmd(b)
		if err != nil {
			if len(b) >= WebDoomCmdSize {
				t.Fatalf("error on %d bytes: %v", len(b), err)
			}
			return
		}
		if n != WebDoomCmdSize || !bytes.Equal(m.Append(nil), b[:n]) {
			t.Fatalf("round trip of %x", b)
		}
		if _, err := DecodeWebDoomCmdMessage(b); (err == nil) != (len(b) == WebDoomCmdSize) {
			t.Fatalf("whole-message decode of %d bytes: %v", len(b), err)
		}
	})
}

func FuzzParseWebDoomBundle(f *testing.F) {
	m := WebDoomBundle{Tic: 9, InGame: 3, Fabricated: 12}
	f.Add(m.Append(nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseWebDoomBundle(b)
		if err != nil {
			if len(b) >= WebDoomBundleSize {
				t.Fatalf("error on %d bytes: %v", len(b), err)
			}
			return
		}
		if n != WebDoomBundleSize || !bytes.Equal(m.Append(nil), b[:n]) {
			t.Fatalf("round trip of %x", b)
		}
	})
}
