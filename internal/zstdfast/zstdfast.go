// Package zstdfast holds the one zstd encoder and decoder configuration
// rewind uses: the fastest level, one goroutine, no checksum, and a bounded
// window. Package world compresses its encodings with it, and the
// benchmarks of cmd/rewind compare against exactly what world would send.
// It is internal because nothing outside the module needs it.
package zstdfast

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// MaxWindow bounds the history a zstd frame may ask the decoder for.
const MaxWindow = 1 << 22

var (
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	err  error
)

// Coders returns the shared encoder and decoder (EncodeAll and DecodeAll
// are safe for concurrent use; creating an encoder costs about 200 µs, so
// it is made once).
func Coders() (*zstd.Encoder, *zstd.Decoder, error) {
	once.Do(func() {
		enc, err = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(MaxWindow),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return
		}
		dec, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(MaxWindow),
			zstd.WithDecodeAllCapLimit(true))
	})
	return enc, dec, err
}

// Append appends the zstd encoding of src at the fastest level to dst.
func Append(dst, src []byte) []byte {
	e, _, err := Coders()
	if err != nil {
		panic(err) // only on broken options: an internal invariant
	}
	return e.EncodeAll(src, dst)
}
