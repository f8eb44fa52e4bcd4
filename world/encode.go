package world

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/zeebo/xxh3"
)

// Encoding format (version 1), written by AppendWorld, AppendDelta and
// AppendPages; little-endian:
//
//	[0]     0xB7                 magic and version
//	[1]     kind<<4 | compression kind: 1 whole world, 2 delta against a
//	                             snapshot, 3 pages against the receiver's
//	                             world; compression: 0 none, 1 s2, 2 zstd
//	[2:10]  layout hash
//	[10:18] base hash            whole: empty-world hash; delta: the base
//	                             snapshot's hash; pages: 0
//	[18:26] target hash          World.Hash of the result, checked on decode
//	[26:]   uvarint raw length, then the compressed payload (compression
//	        != 0), or the payload itself
//
//	payload := uvarint(entries) entry*
//	entry   := uvarint(page - previous page - 1) kind body
//	kind    0x10 zero page                        (no body)
//	        0x11 same as the receiver's page N    uvarint(N)
//	        0x00-0x0F transformed page: bits 0-1 base op (0 none, 1 XOR with
//	             the receiver's page at the same index, 2 bytewise
//	             difference from it), bit 2 row difference (each byte XOR
//	             the byte one stride before), bit 3 byte-column transpose
//	             with the stride; uvarint(stride) if bit 2 or 3; then the
//	             zero-run packed bytes (pack.go)
//
// Pages not listed are the receiver's base page at the same index.
const (
	magic = 0xB7

	kindWhole = 1
	kindDelta = 2
	kindPages = 3

	headerLen = 26

	pageZero = 0x10
	pageRef  = 0x11

	opNone      = 0
	opXor       = 1
	opSub       = 2
	opRow       = 4
	opTranspose = 8
)

var noPages = []int{}

// coderScratch holds an encoder's or decoder's reusable buffers; its sizes
// are bounded by the layout.
type coderScratch struct {
	t1, t2, t3, tmp []byte // page-size work buffers
	best, cand      []byte
	payload         []byte
	hashes          []uint64
	lookup          map[uint64]int
	written         []bool
	oldUsed         []int
	hist            [256]int
}

func (w *World) scratch() *coderScratch {
	if w.sc == nil {
		ps := w.layout.pageSize
		w.sc = &coderScratch{
			t1: make([]byte, ps), t2: make([]byte, ps), t3: make([]byte, ps), tmp: make([]byte, ps),
			lookup: map[uint64]int{},
		}
	}
	return w.sc
}

// SetCompression sets the compression stage of w's encodings (default
// CompressAuto).
func (w *World) SetCompression(c Compression) { w.compression = c }

// AppendWorld appends the whole-world encoding of w (no base: the receiver
// needs nothing but the layout) to dst. Decode it with DecodeWorld.
func (w *World) AppendWorld(dst []byte) []byte {
	src := pageSource{empty: w.layout}
	return w.encode(dst, kindWhole, w.layout.EmptyHash(), &src, nil, nil)
}

// AppendDelta appends the encoding of w against base, a snapshot the
// receiver also holds (same layout), to dst: only pages that differ from
// base are sent. Decode it with DecodeDelta and the same base.
func (w *World) AppendDelta(dst []byte, base *Snapshot) ([]byte, error) {
	if base.layout == nil || base.layout.hash != w.layout.hash {
		return dst, fmt.Errorf("world: encode delta: %w", ErrLayout)
	}
	src := pageSource{snap: base}
	return w.encode(dst, kindDelta, base.Hash(), &src, nil, nil), nil
}

// AppendPages appends to dst the pages of w whose hashes differ from
// theirs (the receiver's PageHashes), for the receiver to apply to its
// world with ApplyPages. A page equal to one the receiver has elsewhere is
// sent as a reference to it.
func (w *World) AppendPages(dst []byte, theirs []uint64) ([]byte, error) {
	if len(theirs) != w.PageCount() {
		return dst, fmt.Errorf("world: encode pages: %d page hashes for %d pages: %w", len(theirs), w.PageCount(), ErrLayout)
	}
	return w.encode(dst, kindPages, 0, nil, theirs, nil), nil
}

// AppendPageList appends to dst the listed pages of w (indexes in
// ascending order, each less than PageCount), for a receiver that found
// with DiffPages which of its pages differ and asked for them; it applies
// them with ApplyPages, which checks the result against w's hash.
func (w *World) AppendPageList(dst []byte, pages []int) ([]byte, error) {
	prev := -1
	for _, p := range pages {
		if p <= prev || p >= w.PageCount() {
			return dst, fmt.Errorf("world: encode page list: page %d out of order or range [0:%d]: %w", p, w.PageCount(), ErrPageList)
		}
		prev = p
	}
	if pages == nil {
		pages = noPages // nil means "no list" to encode
	}
	return w.encode(dst, kindPages, 0, nil, nil, pages), nil
}

// encode writes the header and the (compressed) payload. One of src (the
// receiver's base pages are known), theirs (only their hashes) or list (the
// pages to send) is set.
func (w *World) encode(dst []byte, kind byte, baseHash uint64, src *pageSource, theirs []uint64, list []int) []byte {
	return w.frame(dst, kind, baseHash, w.encodePages(src, theirs, list))
}

// encodePages builds the payload (in the scratch's buffer): the entry
// count, then for each page sent its index gap and its form (zero, "same
// as your page N", or the best transformed form).
func (w *World) encodePages(src *pageSource, theirs []uint64, list []int) []byte {
	sc := w.scratch()
	ps := w.layout.pageSize
	pages := w.layout.size / ps
	p := sc.payload[:0]
	entries := 0
	prev := -1
	clear(sc.lookup)
	lookupReady := false
	var mine []uint64
	if theirs != nil {
		for i, h := range theirs {
			if _, ok := sc.lookup[h]; !ok {
				sc.lookup[h] = i
			}
		}
		lookupReady = true
		mine = w.PageHashes(sc.hashes)
		sc.hashes = mine
	}
	zh := zeroPageHash(ps)
	for i := 0; i < pages; i++ {
		t := w.Page(i)
		var b []byte
		switch {
		case list != nil:
			if len(list) == 0 || list[0] != i {
				continue
			}
			list = list[1:]
		case theirs != nil:
			if mine[i] == theirs[i] {
				continue
			}
		default:
			b = src.page(i, sc.tmp)
			if bytes.Equal(t, b) {
				continue
			}
		}
		p = binary.AppendUvarint(p, uint64(i-prev-1))
		prev = i
		entries++
		switch {
		case isZero(t):
			p = append(p, pageZero)
		case src == nil && theirs == nil:
			p = w.appendBestPage(p, i, t, nil, sc)
		default:
			if n, ok := w.sameAs(i, t, src, mine, zh, &lookupReady); ok {
				p = append(p, pageRef)
				p = binary.AppendUvarint(p, uint64(n))
			} else {
				p = w.appendBestPage(p, i, t, b, sc)
			}
		}
	}
	sc.payload = p
	// Prefix the entry count.
	var cnt [binary.MaxVarintLen64]byte
	cn := binary.PutUvarint(cnt[:], uint64(entries))
	sc.payload = slices.Insert(p, 0, cnt[:cn]...)
	return sc.payload
}

// sameAs looks for a page of the receiver's equal to our page i (t): by
// their hashes (mine is ours, src nil), or among src's pages, whose hash
// lookup it builds on first use (lookupReady). The zero page never counts.
func (w *World) sameAs(i int, t []byte, src *pageSource, mine []uint64, zh uint64, lookupReady *bool) (int, bool) {
	sc := w.scratch()
	var h uint64
	if src == nil {
		h = mine[i]
	} else {
		h = xxh3.Hash(t)
		if !*lookupReady {
			sc.hashes = src.pageHashes(sc.hashes[:0], sc.t1)
			for j, bh := range sc.hashes {
				if bh == zh {
					continue
				}
				if _, ok := sc.lookup[bh]; !ok {
					sc.lookup[bh] = j
				}
			}
			*lookupReady = true
		}
	}
	n, ok := sc.lookup[h]
	if !ok || h == zh || (src != nil && !bytes.Equal(src.page(n, sc.t1), t)) {
		return 0, false
	}
	return n, true
}

// frame appends the header (magic, kind, layout, base and world hashes)
// and the payload body to dst, compressed as the world's Compression
// says (CompressAuto: zstd when it gains, without the length prefix when
// it does not).
func (w *World) frame(dst []byte, kind byte, baseHash uint64, body []byte) []byte {
	n := len(dst)
	dst = append(dst, magic, 0)
	dst = binary.LittleEndian.AppendUint64(dst, w.layout.hash)
	dst = binary.LittleEndian.AppendUint64(dst, baseHash)
	dst = binary.LittleEndian.AppendUint64(dst, w.Hash())
	c := w.compression
	if c == CompressAuto && len(body) < 64 {
		c = CompressNone
	}
	if c == CompressNone {
		dst = append(dst, body...)
		dst[n+1] = kind << 4
		return dst
	}
	m := len(dst)
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	hl := len(dst) - m
	var wire byte
	dst, wire = compressInto(dst, body, c)
	if wire == wireNone {
		// Auto found no gain: drop the length prefix.
		copy(dst[m:], dst[m+hl:])
		dst = dst[:len(dst)-hl]
	}
	dst[n+1] = kind<<4 | wire
	return dst
}

// appendBestPage appends the smallest transformed form of page t (b is the
// receiver's page at the same index, or nil if unknown).
func (w *World) appendBestPage(p []byte, page int, t, b []byte, sc *coderScratch) []byte {
	r := &w.layout.regions[w.layout.pageRegion[page]]
	// Candidates are compared by size, or by estimated compressed size
	// when a compression stage follows.
	cost := func(b []byte) int { return len(b) }
	if w.compression != CompressNone {
		cost = func(b []byte) int { return entropyBytes(b, &sc.hist) }
	}
	sc.best = appendPacked(sc.best[:0], t)
	bestOp, bestStride, bestCost := opNone, 0, cost(sc.best)
	// try evaluates op: with a base op it computes the base transform into
	// t1; a transpose goes to t3; row+transpose is derived from t3 (so try
	// transpose before row+transpose of the same base op and stride).
	try := func(op, stride int) {
		x := t
		if op&3 != 0 {
			if op&(opRow|opTranspose) == 0 {
				if op&3 == opXor {
					xorInto(sc.t1, t, b)
				} else {
					subInto(sc.t1, t, b)
				}
			}
			x = sc.t1
		}
		switch op & (opRow | opTranspose) {
		case opTranspose:
			transpose(sc.t3, x, stride)
			x = sc.t3
		case opRow | opTranspose:
			rowDiffTransposed(sc.t2, sc.t3, stride)
			x = sc.t2
		case opRow:
			rowDiff(sc.t2, x, stride)
			x = sc.t2
		}
		sc.cand = appendPacked(sc.cand[:0], x)
		if len(sc.cand) >= 2*len(sc.best) {
			return // clearly worse: skip the estimate
		}
		if c := cost(sc.cand) + uvarintLen(stride); c < bestCost {
			sc.best, sc.cand = sc.cand, sc.best
			bestOp, bestStride, bestCost = op, stride, c
		}
	}
	ps := len(t)
	// Candidates (docs/world.md): the page as it is or its XOR or
	// difference with the receiver's page, each alone, byte-column
	// transposed by the row stride, or row-differenced then transposed.
	// Row differencing without transposing never won in measurements.
	baseOps := [3]int{opNone, -1, -1}
	if b != nil && !isZero(b) {
		baseOps = [3]int{opNone, opXor, opSub}
	}
	strides := [2]int{r.stride, r.elem}
	for _, bo := range baseOps {
		if bo < 0 {
			continue
		}
		if bo != opNone {
			try(bo, 0)
		}
		for si, s := range strides {
			if s <= 1 || s >= ps || (si == 1 && s == strides[0]) {
				continue
			}
			try(bo|opTranspose, s)
			try(bo|opRow|opTranspose, s)
		}
	}
	p = append(p, byte(bestOp))
	if bestOp&(opRow|opTranspose) != 0 {
		p = binary.AppendUvarint(p, uint64(bestStride))
	}
	return append(p, sc.best...)
}

func uvarintLen(x int) int {
	if x == 0 {
		return 0
	}
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func isZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// entropyBytes estimates the size of b after zstd: a run of 4 or more
// equal bytes costs about 3 bytes (one match), the other bytes their
// order-0 entropy, plus a byte per 64 for the coder's tables.
func entropyBytes(b []byte, hist *[256]int) int {
	clear(hist[:])
	runs, lits := 0, 0
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && b[j] == b[i] {
			j++
		}
		if j-i >= 4 {
			runs++
			hist[b[i]]++
			lits++
		} else {
			hist[b[i]] += j - i
			lits += j - i
		}
		i = j
	}
	n := float64(lits)
	bits := 0.0
	for _, c := range hist {
		if c > 0 {
			bits += float64(c) * math.Log2(n/float64(c))
		}
	}
	return int(bits/8) + 3*runs + len(b)/64
}
