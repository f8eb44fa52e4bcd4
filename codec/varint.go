package codec

import (
	"fmt"
	"io"
)

// Varints on the wire are LEB128 (as encoding/binary's Uvarint) and must be
// minimal: a parser refuses a trailing zero byte so that every value has
// exactly one encoding. Signed values are zigzag-coded first.

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// readUvarint reads a minimal varint from b[*pos:] and advances *pos.
func readUvarint(b []byte, pos *int) (uint64, error) {
	var v uint64
	var shift uint
	for i := *pos; i < len(b); i++ {
		c := b[i]
		if shift == 63 && c > 1 {
			return 0, fmt.Errorf("%w: varint overflows 64 bits", ErrMalformed)
		}
		v |= uint64(c&0x7F) << shift
		if c < 0x80 {
			if c == 0 && i > *pos {
				return 0, fmt.Errorf("%w: non-minimal varint", ErrMalformed)
			}
			*pos = i + 1
			return v, nil
		}
		shift += 7
	}
	return 0, io.ErrUnexpectedEOF
}

// readUvarint32 reads a varint that must fit in 32 bits.
func readUvarint32(b []byte, pos *int) (uint32, error) {
	v, err := readUvarint(b, pos)
	if err != nil {
		return 0, err
	}
	if v > 0xFFFFFFFF {
		return 0, fmt.Errorf("%w: value %d exceeds 32 bits", ErrMalformed, v)
	}
	return uint32(v), nil
}
