package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"reflect"
	"testing"
)

// testReplay writes a replay of 3 players with 4-byte inputs: a world at
// tick 10, ticks 11..130 in frames of 60, a keyframe at 70.
func testReplay(t testing.TB) ([]byte, ReplayHeader) {
	var buf bytes.Buffer
	h := ReplayHeader{Fingerprint: 0xABCDEF, Layout: 0x1234, TickRate: 60, Players: 3, InputSize: 4,
		Recorder: RecordedByServer, Started: 1700000000000, Game: "sand", Settings: "grid=64",
		MatchSettings: []byte{1, 64, 60}, Module: []byte("\x00asm, a game module")}
	rw, err := NewReplayWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.World(10, []bool{true, false, true}, []byte("world-at-10")); err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 12)
	for tick := uint32(11); tick <= 130; tick++ {
		var ev []ReplayEvent
		if tick == 20 {
			ev = []ReplayEvent{{Player: 1}}
		}
		if tick == 90 {
			ev = []ReplayEvent{{Leave: true, Player: 0}}
		}
		in[tick%12] = byte(tick)
		if err := rw.Tick(tick, ev, in, uint64(tick)*7919); err != nil {
			t.Fatal(err)
		}
		if tick == 70 {
			if err := rw.World(70, []bool{true, true, true}, []byte("key")); err != nil {
				t.Fatal(err)
			}
		}
		if rw.Pending() == 60 {
			_ = rw.Flush()
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	if rw.Written() != int64(buf.Len()) {
		t.Fatalf("Written %d, file %d bytes", rw.Written(), buf.Len())
	}
	return buf.Bytes(), h
}

// readAll reads a replay, returning the ticks (and their input byte sum)
// read, the worlds and the error that ended it (nil at a clean end).
func readAll(b []byte) (ticks []uint32, worlds []uint32, err error) {
	rr, err := NewReplayReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	for {
		f, err := rr.Next()
		if err == io.EOF {
			return ticks, worlds, nil
		}
		if err != nil {
			return ticks, worlds, err
		}
		if f.Kind == ReplayWorld {
			if _, _, err := rr.World(f); err != nil {
				return ticks, worlds, err
			}
			worlds = append(worlds, f.First)
			continue
		}
		if err := rr.Ticks(f, func(t *ReplayTick) error {
			ticks = append(ticks, t.Tick)
			return nil
		}); err != nil {
			return ticks, worlds, err
		}
	}
}

func TestReplayRoundTrip(t *testing.T) {
	b, h := testReplay(t)
	rr, err := NewReplayReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rr.Header(), h) {
		t.Fatalf("header %+v, want %+v", rr.Header(), h)
	}
	f, err := rr.Next()
	if err != nil || f.Kind != ReplayWorld || f.First != 10 {
		t.Fatalf("first frame %+v %v", f, err)
	}
	present, enc, err := rr.World(f)
	if err != nil || string(enc) != "world-at-10" || !present[0] || present[1] || !present[2] {
		t.Fatalf("world %v %q %v", present, enc, err)
	}
	in := make([]byte, 12)
	next := uint32(11)
	for {
		f, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Kind == ReplayWorld {
			if f.First != 70 || next != 71 {
				t.Fatalf("keyframe at %d (next tick %d)", f.First, next)
			}
			continue
		}
		err = rr.Ticks(f, func(rt *ReplayTick) error {
			in[rt.Tick%12] = byte(rt.Tick)
			if rt.Tick != next || !bytes.Equal(rt.Inputs, in) || rt.Hash != uint64(rt.Tick)*7919 {
				t.Fatalf("tick %d (want %d): inputs %v hash %d", rt.Tick, next, rt.Inputs, rt.Hash)
			}
			if (rt.Tick == 20) != (len(rt.Events) == 1 && rt.Events[0] == ReplayEvent{Player: 1}) && rt.Tick != 90 {
				t.Fatalf("tick %d events %v", rt.Tick, rt.Events)
			}
			if rt.Tick == 90 && (len(rt.Events) != 1 || rt.Events[0] != ReplayEvent{Leave: true}) {
				t.Fatalf("tick 90 events %v", rt.Events)
			}
			next++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if next != 131 {
		t.Fatalf("read up to tick %d", next-1)
	}
}

// TestReplayTruncation: a file cut anywhere reads every whole frame before
// the cut and then says truncated, never corrupt.
func TestReplayTruncation(t *testing.T) {
	b, _ := testReplay(t)
	full, _, _ := readAll(b)
	for n := range len(b) {
		ticks, _, err := readAll(b[:n])
		if err == nil {
			if len(ticks) == len(full) {
				t.Fatalf("cut at %d of %d: read it all", n, len(b))
			}
			continue // cut between frames: a clean, shorter file
		}
		if !errors.Is(err, ErrReplayTruncated) {
			t.Fatalf("cut at %d: %v, want truncated", n, err)
		}
	}
}

// TestReplayFlippedBit: a bit flipped anywhere is refused as corrupt
// (never taken for a crash's tail), after the ticks before it and never
// read as other ticks.
func TestReplayFlippedBit(t *testing.T) {
	b, _ := testReplay(t)
	full, _, _ := readAll(b)
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 1 << (i % 8)
		ticks, _, err := readAll(c)
		if err == nil {
			t.Fatalf("bit flipped at byte %d: read without error", i)
		}
		for j, tk := range ticks {
			if tk != full[j] {
				t.Fatalf("bit flipped at byte %d: tick %d read as %d", i, full[j], tk)
			}
		}
		if !errors.Is(err, ErrReplayCorrupt) {
			t.Fatalf("bit flipped at byte %d: %v", i, err)
		}
	}
}

// TestReplayVersion1 reads a file the version-1 writer wrote (testdata,
// testReplay's match before the match settings came): the same header
// without match settings, the same frames. A version this build does not
// know is refused.
func TestReplayVersion1(t *testing.T) {
	old, err := os.ReadFile("testdata/replay-v1.rwreplay")
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(old[8:]); v != 1 {
		t.Fatalf("the golden file is of version %d", v)
	}
	b, h := testReplay(t)
	rr, err := NewReplayReader(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	h.MatchSettings, h.Module = nil, nil
	if !reflect.DeepEqual(rr.Header(), h) {
		t.Fatalf("version-1 header %+v, want %+v", rr.Header(), h)
	}
	ticks1, worlds1, err1 := readAll(old)
	ticks2, worlds2, err2 := readAll(b)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(ticks1, ticks2) || !reflect.DeepEqual(worlds1, worlds2) {
		t.Fatalf("version 1: %d ticks, worlds %v, %v; version 3: %d ticks, worlds %v, %v",
			len(ticks1), worlds1, err1, len(ticks2), worlds2, err2)
	}
	// A version-2 header that ends before its match settings, and a
	// version from the future, are refused (the checksums made right).
	for _, c := range []struct {
		name    string
		version uint16
		cut     int
	}{{"version 2 without match settings", 2, 4 + 5}, {"version 3 without the module's length", 3, 4}, {"version 4", 4, 0}, {"version 0", 0, 0}} {
		n := int(binary.LittleEndian.Uint32(b[10:]))
		hdr := append([]byte(nil), b[18:18+n-c.cut]...)
		f := append([]byte(nil), b[:18]...)
		binary.LittleEndian.PutUint16(f[8:], c.version)
		binary.LittleEndian.PutUint32(f[10:], uint32(len(hdr)))
		binary.LittleEndian.PutUint32(f[14:], crc32c(f[:14]))
		f = append(f, hdr...)
		f = binary.LittleEndian.AppendUint32(f, crc32c(hdr))
		if _, err := NewReplayReader(bytes.NewReader(f)); !errors.Is(err, ErrReplayCorrupt) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Match settings longer than a welcome's are not written.
	h.MatchSettings = make([]byte, MaxSettings+1)
	if _, err := NewReplayWriter(io.Discard, h); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("match settings of %d bytes: %v", MaxSettings+1, err)
	}
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

func FuzzReplayReader(f *testing.F) {
	b, _ := testReplay(f)
	f.Add(b)
	f.Add(b[:100])
	if old, err := os.ReadFile("testdata/replay-v1.rwreplay"); err == nil {
		f.Add(old)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = readAll(b)
	})
}
