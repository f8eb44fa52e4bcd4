package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestTicCmdFields(t *testing.T) {
	c := NewTicCmd(-25, 40, -1280, 0x1234, 'x', 0x83)
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

func TestCmdRoundTrip(t *testing.T) {
	m := Cmd{Tic: 0x01020304, Cmd: NewTicCmd(1, 2, 3, 4, 5, 6)}
	b := m.Append(nil)
	if len(b) != m.Length() || len(b) != 12 {
		t.Fatalf("len %d, Length %d", len(b), m.Length())
	}
	if !bytes.Equal(b[:4], []byte{4, 3, 2, 1}) {
		t.Fatalf("tic not little-endian: %x", b[:4])
	}
	got, n, err := ParseCmd(append(b, 0xff))
	if err != nil || n != 12 || got != m {
		t.Fatalf("parse: %+v %d %v", got, n, err)
	}
	for i := 0; i < 12; i++ {
		if _, _, err := ParseCmd(b[:i]); !errors.Is(err, ErrTruncated) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	if _, err := DecodeCmdMessage(append(b, 0)); !errors.Is(err, ErrSize) {
		t.Fatalf("13-byte message: %v", err)
	}
	if _, err := DecodeCmdMessage(b[:11]); !errors.Is(err, ErrSize) {
		t.Fatalf("11-byte message: %v", err)
	}
	if got, err := DecodeCmdMessage(b); err != nil || got != m {
		t.Fatalf("decode: %+v %v", got, err)
	}
}

func TestBundleRoundTrip(t *testing.T) {
	m := Bundle{Tic: 77, InGame: 0b1011, Fabricated: 0b0110}
	for i := range m.Cmds {
		m.Cmds[i] = NewTicCmd(int8(i), int8(-i), int16(i*256), 0, 0, uint8(i))
	}
	b := m.Append(nil)
	if len(b) != m.Length() || len(b) != 38 {
		t.Fatalf("len %d, Length %d", len(b), m.Length())
	}
	if b[4] != 0b1011 || b[5] != 0b0110 || !bytes.Equal(b[6+8*2:6+8*3], m.Cmds[2][:]) {
		t.Fatalf("layout: %x", b)
	}
	got, n, err := ParseBundle(b)
	if err != nil || n != 38 || got != m {
		t.Fatalf("parse: %+v %d %v", got, n, err)
	}
	for i := 0; i < 38; i++ {
		if _, _, err := ParseBundle(b[:i]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("truncated to %d: %v", i, err)
		}
	}
	if _, err := DecodeBundleMessage(append(b, 0)); !errors.Is(err, ErrSize) {
		t.Fatalf("39 bytes: %v", err)
	}
}

func FuzzParseCmd(f *testing.F) {
	f.Add(Cmd{Tic: 5, Cmd: NewTicCmd(1, 2, 3, 4, 5, 6)}.Append(nil))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseCmd(b)
		if err != nil {
			if len(b) >= CmdSize {
				t.Fatalf("error on %d bytes: %v", len(b), err)
			}
			return
		}
		if n != CmdSize || !bytes.Equal(m.Append(nil), b[:n]) {
			t.Fatalf("round trip of %x", b)
		}
		if _, err := DecodeCmdMessage(b); (err == nil) != (len(b) == CmdSize) {
			t.Fatalf("whole-message decode of %d bytes: %v", len(b), err)
		}
	})
}

func FuzzParseBundle(f *testing.F) {
	m := Bundle{Tic: 9, InGame: 3, Fabricated: 12}
	f.Add(m.Append(nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := ParseBundle(b)
		if err != nil {
			if len(b) >= BundleSize {
				t.Fatalf("error on %d bytes: %v", len(b), err)
			}
			return
		}
		if n != BundleSize || !bytes.Equal(m.Append(nil), b[:n]) {
			t.Fatalf("round trip of %x", b)
		}
	})
}
