package world

import (
	"fmt"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
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

// maxZstdWindow bounds the history a zstd frame may ask the decoder for.
const maxZstdWindow = 1 << 22

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
	zstdErr  error
)

// zstdCoders returns the shared encoder and decoder (EncodeAll and
// DecodeAll are safe for concurrent use; creating an encoder costs about
// 200 µs, so it is made once).
func zstdCoders() (*zstd.Encoder, *zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdEnc, zstdErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(maxZstdWindow),
			zstd.WithEncoderCRC(false))
		if zstdErr != nil {
			return
		}
		zstdDec, zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecodeAllCapLimit(true))
	})
	return zstdEnc, zstdDec, zstdErr
}

// ZstdFastest appends the zstd encoding of src at the fastest level (with
// the encoder settings world encodings use) to dst. It exists so that
// benchmarks compare against exactly what the package would send.
func ZstdFastest(dst, src []byte) []byte {
	enc, _, err := zstdCoders()
	if err != nil {
		panic(err) // only on broken options: an internal invariant
	}
	return enc.EncodeAll(src, dst)
}

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
		return ZstdFastest(dst, payload), wireZstd
	}
	// Auto: zstd when it helps.
	if len(payload) >= 64 {
		n := len(dst)
		dst = ZstdFastest(dst, payload)
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
		_, dec, err := zstdCoders()
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
