package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/rewindnet/rewind/internal/zstdfast"
)

// ReplayReader reads a replay written by ReplayWriter, frame by frame.
// Allocation is bounded by the bytes actually read (and MaxReplayFrame).
type ReplayReader struct {
	r    io.Reader
	h    ReplayHeader
	comp bytes.Buffer
	raw  []byte
	head [replayFrameHead]byte
}

// NewReplayReader reads and checks the file's start (magic, version,
// header). A bad magic or version, a damaged or truncated header is an
// error wrapping ErrReplayCorrupt (ErrReplayTruncated: the file ends
// inside it).
func NewReplayReader(r io.Reader) (*ReplayReader, error) {
	var start [18]byte
	if _, err := io.ReadFull(r, start[:]); err != nil {
		return nil, truncated("replay file start", err)
	}
	if string(start[:8]) != replayMagic {
		return nil, fmt.Errorf("%w: not a replay file", ErrReplayCorrupt)
	}
	if crc32.Checksum(start[:14], castagnoli) != binary.LittleEndian.Uint32(start[14:]) {
		return nil, fmt.Errorf("%w: replay file start checksum", ErrReplayCorrupt)
	}
	v := binary.LittleEndian.Uint16(start[8:])
	if v < 1 || v > ReplayVersion {
		return nil, fmt.Errorf("%w: replay format version %d, this build reads 1 to %d", ErrReplayCorrupt, v, ReplayVersion)
	}
	n := binary.LittleEndian.Uint32(start[10:])
	if n > maxReplayHeader {
		return nil, fmt.Errorf("%w: replay header of %d bytes", ErrReplayCorrupt, n)
	}
	b := make([]byte, n+4)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, truncated("replay header", err)
	}
	if crc32.Checksum(b[:n], castagnoli) != binary.LittleEndian.Uint32(b[n:]) {
		return nil, fmt.Errorf("%w: replay header checksum", ErrReplayCorrupt)
	}
	h, moduleLen, err := parseReplayHeader(b[:n], v)
	if err != nil {
		return nil, err
	}
	rr := &ReplayReader{r: r, h: h}
	if moduleLen > 0 {
		f, err := rr.next(ReplayModule)
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: the module's frame", ErrReplayTruncated)
		}
		if err != nil {
			return nil, err
		}
		if len(f.Raw) != int(moduleLen) {
			return nil, fmt.Errorf("%w: a module frame of %d bytes, the header says %d", ErrReplayCorrupt, len(f.Raw), moduleLen)
		}
		rr.h.Module = append([]byte(nil), f.Raw...)
	}
	return rr, nil
}

func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s", ErrReplayTruncated, what)
	}
	return err
}

// Header returns the replay's header.
func (rr *ReplayReader) Header() ReplayHeader { return rr.h }

// ReplayFrame is one frame of a replay, decompressed and checked.
type ReplayFrame struct {
	// Kind is ReplayTicks or ReplayWorld.
	Kind byte
	// First is the frame's first tick (a world frame's tick).
	First uint32
	// Count is the number of ticks (1 for a world).
	Count int
	// Raw is the payload (valid until the next Next).
	Raw []byte
}

// Next reads the next frame. At the end of the file it returns io.EOF; a
// file that ends inside a frame gives ErrReplayTruncated (a recorder's
// crash); a frame that is all there but fails its checksum or does not
// decompress gives ErrReplayCorrupt, with the frame's first tick as read
// (First) when its header could be read.
func (rr *ReplayReader) Next() (ReplayFrame, error) { return rr.next(0) }

// next reads the next frame: ticks or a world, or, with kind
// ReplayModule, the module's frame.
func (rr *ReplayReader) next(kind byte) (ReplayFrame, error) {
	var f ReplayFrame
	h := rr.head[:]
	if n, err := io.ReadFull(rr.r, h); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return f, io.EOF
		}
		return f, truncated("replay frame header", err)
	}
	le := binary.LittleEndian
	f.Kind, f.First, f.Count = h[1], le.Uint32(h[2:]), int(le.Uint16(h[6:]))
	rawLen, compLen := le.Uint32(h[8:]), le.Uint32(h[12:])
	if h[0] != replayFrameMagic || crc32.Checksum(h[:20], castagnoli) != le.Uint32(h[20:]) {
		f.First = 0 // not to be trusted
		return f, fmt.Errorf("%w: frame header checksum", ErrReplayCorrupt)
	}
	if rawLen > MaxReplayFrame || compLen > MaxReplayFrame {
		return f, fmt.Errorf("%w: frame at tick %d: %d bytes", ErrReplayCorrupt, f.First, max(rawLen, compLen))
	}
	rr.comp.Reset()
	if n, err := io.CopyN(&rr.comp, rr.r, int64(compLen)); err != nil {
		if n < int64(compLen) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return f, fmt.Errorf("%w: frame at tick %d", ErrReplayTruncated, f.First)
		}
		return f, err
	}
	comp := rr.comp.Bytes()
	if crc32.Checksum(comp, castagnoli) != le.Uint32(h[16:]) {
		return f, fmt.Errorf("%w: frame at tick %d: checksum", ErrReplayCorrupt, f.First)
	}
	if kind == ReplayModule && (f.Kind != ReplayModule || f.Count != 1) ||
		kind != ReplayModule && ((f.Kind != ReplayTicks && f.Kind != ReplayWorld) || f.Count == 0 || (f.Kind == ReplayWorld && f.Count != 1)) {
		return f, fmt.Errorf("%w: frame at tick %d: kind %d of %d ticks", ErrReplayCorrupt, f.First, f.Kind, f.Count)
	}
	dec, err := zstdfast.Decoder()
	if err != nil {
		return f, err
	}
	if cap(rr.raw) < int(rawLen) {
		rr.raw = make([]byte, 0, rawLen)
	}
	out, err := dec.DecodeAll(comp, rr.raw[:0:rawLen])
	if err != nil || len(out) != int(rawLen) {
		return f, fmt.Errorf("%w: frame at tick %d: payload does not decompress to %d bytes (%v)", ErrReplayCorrupt, f.First, rawLen, err)
	}
	f.Raw = out
	return f, nil
}

// ReplayTick is one tick of a ticks frame.
type ReplayTick struct {
	// Tick is the tick number.
	Tick uint32
	// Events are the tick's joins and leaves.
	Events []ReplayEvent
	// Inputs are every slot's packed input (players × input size).
	Inputs []byte
	// Hash is the world's hash after the tick.
	Hash uint64
}

// Ticks decodes a ticks frame, calling fn for each tick in order (its
// Events and Inputs are valid during the call). A payload that does not
// hold exactly Count ticks is an error wrapping ErrReplayCorrupt.
func (rr *ReplayReader) Ticks(f ReplayFrame, fn func(t *ReplayTick) error) error {
	if f.Kind != ReplayTicks {
		return fmt.Errorf("codec: replay: a frame of kind %d is not ticks: %w", f.Kind, ErrWrongType)
	}
	size := int(rr.h.Players) * int(rr.h.InputSize)
	var t ReplayTick
	t.Inputs = make([]byte, size)
	t.Events = make([]ReplayEvent, 0, 8)
	b := f.Raw
	for i := range f.Count {
		t.Tick = f.First + uint32(i)
		bad := fmt.Errorf("%w: frame at tick %d: tick %d", ErrReplayCorrupt, f.First, t.Tick)
		if len(b) < 1 {
			return bad
		}
		n := int(b[0])
		b = b[1:]
		if len(b) < 2*n+size+8 {
			return bad
		}
		t.Events = t.Events[:0]
		for e := range n {
			k, p := b[2*e], b[2*e+1]
			if (k != 1 && k != 2) || p >= uint8(rr.h.Players) {
				return bad
			}
			t.Events = append(t.Events, ReplayEvent{Leave: k == 2, Player: p})
		}
		b = b[2*n:]
		if i == 0 {
			clear(t.Inputs)
		}
		for j := range size {
			t.Inputs[j] ^= b[j]
		}
		t.Hash = binary.LittleEndian.Uint64(b[size:])
		b = b[size+8:]
		if err := fn(&t); err != nil {
			return err
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: frame at tick %d: %d bytes after its ticks", ErrReplayCorrupt, f.First, len(b))
	}
	return nil
}

// World splits a world frame into who is present and the world encoding.
func (rr *ReplayReader) World(f ReplayFrame) (present []bool, enc []byte, err error) {
	n := int(rr.h.Players)
	if f.Kind != ReplayWorld || len(f.Raw) < n {
		return nil, nil, fmt.Errorf("%w: world frame at tick %d", ErrReplayCorrupt, f.First)
	}
	present = make([]bool, n)
	for i, v := range f.Raw[:n] {
		if v > 1 {
			return nil, nil, fmt.Errorf("%w: world frame at tick %d: presence", ErrReplayCorrupt, f.First)
		}
		present[i] = v == 1
	}
	return present, f.Raw[n:], nil
}
