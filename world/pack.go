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
		for j+8 <= n && load(src, j) == 0 {
			j += 8
		}
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

// The byte-wise transforms work 8 bytes at a time (byte lanes of a
// uint64), then finish byte by byte.

const (
	lanesHi = 0x8080808080808080
	lanesLo = 0x7f7f7f7f7f7f7f7f
)

func load(b []byte, i int) uint64     { return binary.LittleEndian.Uint64(b[i:]) }
func store(b []byte, i int, v uint64) { binary.LittleEndian.PutUint64(b[i:], v) }

// xorInto sets dst[i] = a[i] ^ b[i].
func xorInto(dst, a, b []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		store(dst, i, load(a, i)^load(b, i))
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] ^ b[i]
	}
}

// subInto sets dst[i] = a[i] - b[i] (bytewise, mod 256).
func subInto(dst, a, b []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x, y := load(a, i), load(b, i)
		store(dst, i, ((x|lanesHi)-(y&lanesLo))^((x^^y)&lanesHi))
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] - b[i]
	}
}

// addInto sets dst[i] = a[i] + b[i] (bytewise, mod 256).
func addInto(dst, a, b []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x, y := load(a, i), load(b, i)
		store(dst, i, ((x&lanesLo)+(y&lanesLo))^((x^y)&lanesHi))
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] + b[i]
	}
}

// rowDiff sets dst[i] = src[i] ^ src[i-stride] (src[i] for i < stride).
func rowDiff(dst, src []byte, stride int) {
	copy(dst[:stride], src[:stride])
	i := stride
	for ; i+8 <= len(src); i += 8 {
		store(dst, i, load(src, i)^load(src, i-stride))
	}
	for ; i < len(src); i++ {
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
	n := rows * stride
	d := dst[:n]
	for r := 0; r < rows; r++ {
		row := src[r*stride : r*stride+stride]
		for c, v := range row {
			d[c*rows+r] = v
		}
	}
	copy(dst[n:], src[n:])
}

// untranspose inverts transpose.
func untranspose(dst, src []byte, stride int) {
	rows := len(src) / stride
	n := rows * stride
	s := src[:n]
	for r := 0; r < rows; r++ {
		row := dst[r*stride : r*stride+stride]
		for c := range row {
			row[c] = s[c*rows+r]
		}
	}
	copy(dst[n:], src[n:])
}

// rowDiffTransposed sets dst to transpose(rowDiff(x, stride), stride) given
// tr = transpose(x, stride), without a second transpose: in the transposed
// layout a row difference is a difference with the previous byte of the
// same column.
func rowDiffTransposed(dst, tr []byte, stride int) {
	rows := len(tr) / stride
	n := rows * stride
	for c := 0; c < stride; c++ {
		col := tr[c*rows : c*rows+rows]
		out := dst[c*rows : c*rows+rows]
		if rows > 0 {
			out[0] = col[0]
		}
		for r := 1; r < rows; r++ {
			out[r] = col[r] ^ col[r-1]
		}
	}
	// The partial last row differs from the last full row.
	for j := n; j < len(tr); j++ {
		c := j - n
		if rows > 0 {
			dst[j] = tr[j] ^ tr[c*rows+rows-1]
		} else {
			dst[j] = tr[j]
		}
	}
}
