package netutil

import (
	"encoding/binary"
	"errors"
	"testing"
)

// frame returns a masked client frame header declaring n payload bytes.
func frameHeader(n uint64) []byte {
	b := []byte{0x81}
	switch {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n <= 0xffff:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, n)
	}
	return append(b, 1, 2, 3, 4) // mask key
}

func TestFrameGuard(t *testing.T) {
	var stream []byte
	for _, n := range []uint64{0, 5, 125, 126, 1000, 16 << 10} {
		stream = append(stream, frameHeader(n)...)
		stream = append(stream, make([]byte, n)...)
	}
	// Byte by byte and in one piece: every frame within the limit passes.
	for _, step := range []int{1, 7, len(stream)} {
		g := FrameGuard{Limit: 16 << 10}
		for i := 0; i < len(stream); i += step {
			if err := g.Scan(stream[i:min(i+step, len(stream))]); err != nil {
				t.Fatalf("step %d at %d: %v", step, i, err)
			}
		}
		if g.have != 0 || g.left != 0 {
			t.Fatalf("step %d: stream left the guard mid-frame (%d, %d)", step, g.have, g.left)
		}
	}
	// A header over the limit fails as soon as its length is read, even a
	// 2^63 one with no payload after it; then every later scan fails.
	for _, n := range []uint64{16<<10 + 1, 1 << 63, 1<<64 - 1} {
		g := FrameGuard{Limit: 16 << 10}
		h := append(append(frameHeader(5), 0, 0, 0, 0, 0), frameHeader(n)...)
		if err := g.Scan(h); !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("%d declared: %v", n, err)
		}
		if err := g.Scan([]byte{0}); !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("after a refusal: %v", err)
		}
	}
}

// FuzzFrameGuard: any byte stream, cut anywhere, never panics, and the
// guard's verdict does not depend on how the stream was cut.
func FuzzFrameGuard(f *testing.F) {
	f.Add(append(frameHeader(3), 1, 2, 3), uint8(2))
	f.Add(frameHeader(1<<63), uint8(1))
	f.Add([]byte{0x81, 0x7e, 0xff}, uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		whole := FrameGuard{Limit: 1000}
		errWhole := whole.Scan(b)
		parts := FrameGuard{Limit: 1000}
		k := min(int(cut), len(b))
		err := parts.Scan(b[:k])
		if err == nil {
			err = parts.Scan(b[k:])
		}
		if (err == nil) != (errWhole == nil) {
			t.Fatalf("whole: %v, cut at %d: %v", errWhole, k, err)
		}
	})
}
