package world

import (
	"fmt"
	"slices"

	"github.com/klauspost/compress/s2"

	"github.com/rewindnet/rewind/internal/zstdfast"
)

// Compression selects the stage that follows zero-run packing in an
// encoding (see docs/world.md for the measurements behind the default).
type Compression uint8

// Compression stages.
const (
	// CompressAuto uses zstd (fastest level) when it makes the payload
	// smaller, else no stage: the default.
	CompressAuto Compression = iota
	// CompressNone sends the packed pages as they are.
	CompressNone
	// CompressS2 compresses the packed pages with s2.
	CompressS2
	// CompressZstd compresses the packed pages with zstd, fastest level.
	CompressZstd
)

// Wire values of the compression field.
const (
	wireNone = 0
	wireS2   = 1
	wireZstd = 2
)

// compressInto appends the compressed payload to dst and returns it with
// the wire value used.
func compressInto(dst, payload []byte, c Compression) ([]byte, byte) {
	switch c {
	case CompressNone:
		return append(dst, payload...), wireNone
	case CompressS2:
		n := len(dst)
		dst = slices.Grow(dst, s2.MaxEncodedLen(len(payload)))
		out := s2.Encode(dst[n:cap(dst)], payload)
		return dst[:n+len(out)], wireS2
	case CompressZstd:
		return zstdfast.Append(dst, payload), wireZstd
	}
	// Auto: zstd when it helps.
	if len(payload) >= 64 {
		n := len(dst)
		dst = zstdfast.Append(dst, payload)
		if len(dst)-n < len(payload) {
			return dst, wireZstd
		}
		dst = dst[:n]
	}
	return append(dst, payload...), wireNone
}

// decompress decodes exactly rawLen bytes (rawLen already checked against
// the layout's bound) into buf, reusing its capacity.
func decompress(buf, src []byte, wire byte, rawLen int) ([]byte, error) {
	if cap(buf) < rawLen {
		buf = make([]byte, 0, rawLen)
	}
	buf = buf[:0:rawLen]
	switch wire {
	case wireS2:
		n, err := s2.DecodedLen(src)
		if err != nil || n != rawLen {
			return nil, fmt.Errorf("%w: s2 length %d, want %d (%v)", ErrCorrupt, n, rawLen, err)
		}
		out, err := s2.Decode(buf[:rawLen], src)
		if err != nil {
			return nil, fmt.Errorf("%w: s2: %v", ErrCorrupt, err)
		}
		return out, nil
	case wireZstd:
		dec, err := zstdfast.Decoder()
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(src, buf)
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
		}
		if len(out) != rawLen {
			return nil, fmt.Errorf("%w: zstd gave %d bytes, want %d", ErrCorrupt, len(out), rawLen)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown compression %d", ErrCorrupt, wire)
}
