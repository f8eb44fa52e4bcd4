package world

import (
	"encoding/binary"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// pageSource gives the pages of a receiver's base: a snapshot, a world, or
// the empty world of a layout.
type pageSource struct {
	empty *Layout
	snap  *Snapshot
	world *World
	pos   []int // snapshot: start of each region in snap.buf
}

// snapUsed returns the bytes in use of region r in snapshot s.
func snapUsed(s *Snapshot, r *region) int {
	if r.lenOff < 0 {
		return r.capBytes
	}
	return int(*(*uint32)(unsafe.Pointer(&s.buf[r.lenSnap]))) * r.elem
}

func (src *pageSource) layout() *Layout {
	switch {
	case src.snap != nil:
		return src.snap.layout
	case src.world != nil:
		return src.world.layout
	}
	return src.empty
}

// page returns page i of the base (tmp, of page size, may be used to build
// it).
func (src *pageSource) page(i int, tmp []byte) []byte {
	if src.world != nil {
		return src.world.Page(i)
	}
	l := src.layout()
	ps := l.pageSize
	if src.snap == nil {
		clear(tmp)
		if i == 0 {
			binary.LittleEndian.PutUint64(tmp, l.hash)
		}
		return tmp
	}
	if src.pos == nil {
		src.pos = make([]int, 0, len(l.regions))
		p := l.fixedBytes
		for ri := range l.regions {
			r := &l.regions[ri]
			if r.snapOff >= 0 {
				src.pos = append(src.pos, r.snapOff)
				continue
			}
			src.pos = append(src.pos, p)
			p += snapUsed(src.snap, r)
		}
	}
	ri := l.pageRegion[i]
	r := &l.regions[ri]
	start := src.pos[ri]
	used := snapUsed(src.snap, r)
	o := i*ps - r.off
	n := 0
	if o < used {
		n = copy(tmp, src.snap.buf[start+o:start+min(used, o+ps)])
	}
	clear(tmp[n:])
	return tmp
}

// pageHashes appends the hash of every base page to dst.
func (src *pageSource) pageHashes(dst []uint64, tmp []byte) []uint64 {
	if src.world != nil {
		return src.world.PageHashes(dst)
	}
	l := src.layout()
	ps := l.pageSize
	zh := zeroPageHash(ps)
	n := l.size / ps
	for i := 0; i < n; i++ {
		if i > 0 {
			r := &l.regions[l.pageRegion[i]]
			if src.snap == nil || i*ps-r.off >= snapUsed(src.snap, r) {
				dst = append(dst, zh)
				continue
			}
		}
		dst = append(dst, xxh3.Hash(src.page(i, tmp)))
	}
	return dst
}
