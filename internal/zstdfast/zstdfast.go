// Package zstdfast holds the one zstd encoder and decoder configuration
// rewind uses: the fastest level, one goroutine, no checksum, and a bounded
// window. Package world compresses its encodings with it, and the
// benchmarks of cmd/rewind compare against exactly what world would send.
// It is internal because nothing outside the module needs it.
//
// The encoder and the decoder are made apart, each at its first use: a
// program that only decodes (a client: a browser tab's joining Worker)
// neither links the encoder nor builds one.
package zstdfast

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// MaxWindow bounds the history a zstd frame may ask the decoder for.
const MaxWindow = 1 << 22

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	encErr  error

	decOnce sync.Once
	dec     *zstd.Decoder
	decErr  error
)

// Encoder returns the shared encoder (EncodeAll is safe for concurrent
// use; creating an encoder costs about 200 µs, so it is made once).
func Encoder() (*zstd.Encoder, error) {
	encOnce.Do(func() {
		enc, encErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(MaxWindow),
			zstd.WithEncoderCRC(false))
	})
	return enc, encErr
}

// Decoder returns the shared decoder (DecodeAll is safe for concurrent
// use), made once.
func Decoder() (*zstd.Decoder, error) {
	decOnce.Do(func() {
		dec, decErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(MaxWindow),
			zstd.WithDecodeAllCapLimit(true))
	})
	return dec, decErr
}

// Append appends the zstd encoding of src at the fastest level to dst.
func Append(dst, src []byte) []byte {
	e, err := Encoder()
	if err != nil {
		panic(err) // only on broken options: an internal invariant
	}
	return e.EncodeAll(src, dst)
}
