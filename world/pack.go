package world

import (
	"encoding/binary"
	"fmt"
)

// Zero-run packing of one page (docs/world.md, "Paged deltas"):
//
//	page   := token* (until exactly the page size is covered)
//	token  := uvarint(zeros<<3 | n) [uvarint(lit) if n == 0] literal bytes
//
// where zeros is the number of zero bytes and the literal length is n (1-7)
// or, when n == 0, lit (which may be 0 for a final run of zeros). Zero runs
// shorter than minZeroRun inside non-zero data stay in the literal, where
// they are cheaper.
const minZeroRun = 3

// appendPacked appends the packed form of src to dst.
func appendPacked(dst, src []byte) []byte {
	n := len(src)
	i := 0
	for i < n {
		j := i
		for j < n && src[j] == 0 {
			j++
		}
		z := j - i
		if j == n {
			dst = binary.AppendUvarint(dst, uint64(z)<<3)
			return append(dst, 0)
		}
		k := j
		for k < n {
			if src[k] != 0 {
				k++
				continue
			}
			r := k
			for r < n && src[r] == 0 && r-k < minZeroRun {
				r++
			}
			if r-k >= minZeroRun || r == n {
				break
			}
			k = r
		}
		lit := k - j
		if lit <= 7 {
			dst = binary.AppendUvarint(dst, uint64(z)<<3|uint64(lit))
		} else {
			dst = binary.AppendUvarint(dst, uint64(z)<<3)
			dst = binary.AppendUvarint(dst, uint64(lit))
		}
		dst = append(dst, src[j:k]...)
		i = k
	}
	return dst
}

// unpack fills out (a whole page) from packed data at the start of b and
// returns the number of bytes consumed.
func unpack(out, b []byte) (int, error) {
	pos, used := 0, 0
	for pos < len(out) {
		h, n := binary.Uvarint(b[used:])
		if n <= 0 {
			return 0, fmt.Errorf("%w: bad packed token", ErrCorrupt)
		}
		used += n
		zeros := h >> 3
		lit := h & 7
		if lit == 0 {
			l, n := binary.Uvarint(b[used:])
			if n <= 0 {
				return 0, fmt.Errorf("%w: bad packed literal length", ErrCorrupt)
			}
			used += n
			lit = l
		}
		rest := uint64(len(out) - pos)
		if zeros > rest || lit > rest-zeros || zeros+lit == 0 {
			return 0, fmt.Errorf("%w: packed run overflows the page", ErrCorrupt)
		}
		if lit > uint64(len(b)-used) {
			return 0, fmt.Errorf("%w: packed literal truncated", ErrCorrupt)
		}
		clear(out[pos : pos+int(zeros)])
		pos += int(zeros)
		copy(out[pos:pos+int(lit)], b[used:used+int(lit)])
		pos += int(lit)
		used += int(lit)
	}
	return used, nil
}

// Page transforms. Each is applied to a whole page; decoding applies the
// inverse steps in reverse order.

// xorInto sets dst[i] = a[i] ^ b[i].
func xorInto(dst, a, b []byte) {
	for i := range dst {
		dst[i] = a[i] ^ b[i]
	}
}

// subInto sets dst[i] = a[i] - b[i] (bytewise, mod 256).
func subInto(dst, a, b []byte) {
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

// addInto sets dst[i] = a[i] + b[i] (bytewise, mod 256).
func addInto(dst, a, b []byte) {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// rowDiff sets dst[i] = src[i] ^ src[i-stride] (src[i] for i < stride).
func rowDiff(dst, src []byte, stride int) {
	copy(dst[:stride], src[:stride])
	for i := stride; i < len(src); i++ {
		dst[i] = src[i] ^ src[i-stride]
	}
}

// rowUndiff inverts rowDiff in place.
func rowUndiff(b []byte, stride int) {
	for i := stride; i < len(b); i++ {
		b[i] ^= b[i-stride]
	}
}

// transpose writes src's bytes column by column for rows of stride bytes:
// byte c of every full row, for c = 0..stride-1, then the partial last row
// as it is.
func transpose(dst, src []byte, stride int) {
	rows := len(src) / stride
	o := 0
	for c := 0; c < stride; c++ {
		for r := 0; r < rows; r++ {
			dst[o] = src[r*stride+c]
			o++
		}
	}
	copy(dst[o:], src[o:])
}

// untranspose inverts transpose.
func untranspose(dst, src []byte, stride int) {
	rows := len(src) / stride
	o := 0
	for c := 0; c < stride; c++ {
		for r := 0; r < rows; r++ {
			dst[r*stride+c] = src[o]
			o++
		}
	}
	copy(dst[o:], src[o:])
}
