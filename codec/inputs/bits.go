package inputs

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// BitWriter appends bits to a byte slice, least significant bit first
// within each byte (bit 0 of byte 0 is the first bit written). The zero
// value is ready to use and appends to a nil slice; Reset reuses a buffer.
// Writing never fails and allocates only when the buffer must grow.
type BitWriter struct {
	buf []byte
	acc uint64 // pending bits, low bits first
	n   uint   // number of pending bits in acc (< 64 between calls)
}

// Reset makes w append to b[:len(b)] (the bits start at a byte boundary
// after b's existing bytes).
func (w *BitWriter) Reset(b []byte) {
	w.buf = b
	w.acc = 0
	w.n = 0
}

// WriteBits writes the low n bits of v (n <= 64).
func (w *BitWriter) WriteBits(v uint64, n uint) {
	if n == 0 {
		return
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	free := 64 - w.n
	if n < free {
		w.acc |= v << w.n
		w.n += n
		return
	}
	// Fill acc, flush 8 bytes, keep the rest.
	w.acc |= v << w.n
	w.buf = append(w.buf,
		byte(w.acc), byte(w.acc>>8), byte(w.acc>>16), byte(w.acc>>24),
		byte(w.acc>>32), byte(w.acc>>40), byte(w.acc>>48), byte(w.acc>>56))
	if free == 64 {
		w.acc = 0
	} else {
		w.acc = v >> free
	}
	w.n = n - free
}

// WriteBit writes one bit.
func (w *BitWriter) WriteBit(b bool) {
	var v uint64
	if b {
		v = 1
	}
	w.WriteBits(v, 1)
}

// WriteGamma writes v >= 1 as an Elias gamma code: k zero bits, then the
// k+1 significant bits of v from the top (so 1 takes one bit, 2-3 take
// three, 4-7 five). v == 0 is written as if it were 1 would be wrong, so
// callers pass v+1 for values that may be zero.
func (w *BitWriter) WriteGamma(v uint64) {
	if v == 0 {
		panic("inputs: WriteGamma(0)")
	}
	k := uint(bits.Len64(v)) - 1
	w.WriteBits(0, k)
	// Write the k+1 significant bits most significant first, so that the
	// reader can stop at the first one bit: write bit-reversed.
	w.WriteBits(bits.Reverse64(v)>>(63-k), k+1)
}

// BitLen returns the number of bits written since Reset (beyond the bytes
// the buffer held at Reset).
func (w *BitWriter) BitLen() int { return len(w.buf)*8 + int(w.n) }

// Bytes flushes pending bits, padding the last byte with zero bits, and
// returns the buffer. Writing may continue afterwards at the next byte
// boundary.
func (w *BitWriter) Bytes() []byte {
	for w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		if w.n >= 8 {
			w.n -= 8
		} else {
			w.n = 0
		}
	}
	w.acc = 0
	return w.buf
}

// BitReader reads bits written by a BitWriter. Reading past the end sets a
// sticky error (io.ErrUnexpectedEOF) returned by Err; reads after that
// return zeros. The zero value reads nothing; Reset points it at a slice.
type BitReader struct {
	buf []byte
	pos uint // bit position
	err error
}

// Reset makes r read b from its first bit and clears the error.
func (r *BitReader) Reset(b []byte) {
	r.buf = b
	r.pos = 0
	r.err = nil
}

// Err returns io.ErrUnexpectedEOF if a read went past the end, else nil.
func (r *BitReader) Err() error { return r.err }

// Remaining returns the number of unread bits.
func (r *BitReader) Remaining() int { return len(r.buf)*8 - int(r.pos) }

// BytesRead returns the number of bytes touched so far (partial byte
// counted as whole).
func (r *BitReader) BytesRead() int { return int((r.pos + 7) / 8) }

// ReadBits reads n bits (n <= 64) as written by WriteBits.
func (r *BitReader) ReadBits(n uint) uint64 {
	// Fast path (inlined): one 8-byte load holds all n bits. After an
	// error pos is at the end, so the fast path is never taken then.
	if idx := r.pos >> 3; n <= 56 && int(idx)+8 <= len(r.buf) {
		v := binary.LittleEndian.Uint64(r.buf[idx:]) >> (r.pos & 7)
		r.pos += n
		return v & (1<<n - 1)
	}
	return r.readBitsSlow(n)
}

// readBitsSlow reads near the end of the buffer, or more than 56 bits.
func (r *BitReader) readBitsSlow(n uint) uint64 {
	if n == 0 || r.err != nil {
		return 0
	}
	if int(r.pos)+int(n) > len(r.buf)*8 {
		r.err = io.ErrUnexpectedEOF
		r.pos = uint(len(r.buf) * 8)
		return 0
	}
	if n <= 56 {
		// Near the end: the bytes left, zero-padded, hold all n bits.
		v := r.peekTail() >> (r.pos & 7)
		r.pos += n
		return v & (1<<n - 1)
	}
	var v uint64
	var got uint
	for got < n {
		idx := r.pos >> 3
		off := r.pos & 7
		take := 8 - off
		if take > n-got {
			take = n - got
		}
		b := uint64(r.buf[idx]>>off) & (1<<take - 1)
		v |= b << got
		got += take
		r.pos += take
	}
	return v
}

// peekTail returns the (fewer than 8) bytes from the one holding pos to the
// end of the buffer as a little-endian word, zero-padded.
func (r *BitReader) peekTail() uint64 {
	idx := int(r.pos >> 3)
	if len(r.buf) >= 8 {
		// The last 8 bytes, shifted down to start at idx.
		return binary.LittleEndian.Uint64(r.buf[len(r.buf)-8:]) >> (8 * uint(idx-(len(r.buf)-8)))
	}
	var w uint64
	for i := len(r.buf) - 1; i >= idx; i-- {
		w = w<<8 | uint64(r.buf[i])
	}
	return w
}

// PeekBit returns the next bit without reading it (true for 1), and false
// when no bit is left.
func (r *BitReader) PeekBit() bool {
	return r.Remaining() > 0 && r.buf[r.pos>>3]>>(r.pos&7)&1 != 0
}

// ReadBit reads one bit.
func (r *BitReader) ReadBit() bool { return r.ReadBits(1) == 1 }

// ReadGamma reads an Elias gamma code written by WriteGamma. A code with
// more than 64 significant bits sets the error ErrMalformed.
func (r *BitReader) ReadGamma() uint64 {
	if r.err != nil {
		return 0
	}
	// Count the leading zero bits: fast when 8 bytes can be peeked.
	var k uint
	if int(r.pos) < len(r.buf)*8 {
		var w uint64
		if idx := r.pos >> 3; int(idx)+8 <= len(r.buf) {
			w = binary.LittleEndian.Uint64(r.buf[idx:]) >> (r.pos & 7)
		} else {
			w = r.peekTail() >> (r.pos & 7) // zero-padded: a one found is a real bit
		}
		if w != 0 {
			k = uint(bits.TrailingZeros64(w))
			if k <= 56-(r.pos&7) {
				r.pos += k + 1
				goto rest
			}
		}
		k = 0
	}
	for {
		if r.ReadBit() {
			break
		}
		if r.err != nil {
			return 0
		}
		k++
		if k > 63 {
			r.err = ErrMalformed
			return 0
		}
	}
rest:
	// The leading one bit has been read; k more bits follow, most
	// significant first.
	if k == 0 {
		return 1
	}
	rest := r.ReadBits(k)
	return 1<<k | bits.Reverse64(rest)>>(64-k)
}

// AlignByte skips to the next byte boundary.
func (r *BitReader) AlignByte() { r.pos = (r.pos + 7) &^ 7 }
