package world

import (
	"sync"

	"github.com/zeebo/xxh3"
)

var zeroHashes sync.Map // page size -> xxh3 of a zero page

// zeroPageHash returns the hash of an all-zero page of size ps.
func zeroPageHash(ps int) uint64 {
	if h, ok := zeroHashes.Load(ps); ok {
		return h.(uint64)
	}
	h := xxh3.Hash(make([]byte, ps))
	zeroHashes.Store(ps, h)
	return h
}

// PageCount returns the number of pages of the world (fixed by the
// layout).
func (w *World) PageCount() int { return w.layout.size / w.layout.pageSize }

// PageSize returns the page size in bytes.
func (w *World) PageSize() int { return w.layout.pageSize }

// Page returns page i's bytes, aliasing the world (read only).
func (w *World) Page(i int) []byte {
	ps := w.layout.pageSize
	return w.mem[i*ps : (i+1)*ps : (i+1)*ps]
}

// PageHashes appends the xxh3 hash of every page (PageCount of them) to
// dst[:0] and returns it. Pages wholly past what is in use are zero and are
// not read, so the cost follows the bytes in use. It does not allocate when
// dst has room.
func (w *World) PageHashes(dst []uint64) []uint64 {
	dst = dst[:0]
	ps := w.layout.pageSize
	zh := zeroPageHash(ps)
	for i := range w.layout.regions {
		r := &w.layout.regions[i]
		end := r.off + w.used(r)
		for p := r.firstPage; p < r.firstPage+r.pages; p++ {
			if p*ps >= end {
				dst = append(dst, zh)
			} else {
				dst = append(dst, xxh3.Hash(w.mem[p*ps:(p+1)*ps]))
			}
		}
	}
	return dst
}

// DiffPages appends to dst[:0] the indexes of the pages whose hashes differ
// between a and b (and every index present in only one of them) and
// returns it.
func DiffPages(a, b []uint64, dst []int) []int {
	dst = dst[:0]
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			dst = append(dst, i)
		}
	}
	for i := n; i < max(len(a), len(b)); i++ {
		dst = append(dst, i)
	}
	return dst
}
