package world

import (
	"fmt"

	"github.com/zeebo/xxh3"
)

// Snapshot holds a copy of the bytes in use of a world. It is a plain
// reusable value: keep as many as you need (a ring of them, say), fill one
// with World.SnapshotInto and bring a world back with World.Restore. Its
// buffer grows to the largest world it has held and is then reused, so
// steady-state snapshots do not allocate. The zero Snapshot is empty.
type Snapshot struct {
	layout *Layout
	buf    []byte // bytes in use of each region, in layout order
	hash   uint64
	hashed bool
}

// SnapshotInto copies the bytes in use of w into s, replacing what s held.
func (w *World) SnapshotInto(s *Snapshot) {
	n := w.UsedBytes()
	if cap(s.buf) < n {
		s.buf = alignedBytes(n + n/4)
	}
	s.buf = s.buf[:n]
	// The meta regions first (fixed places: a table's length is found
	// without walking), then every table and grid in layout order.
	pos := w.layout.fixedBytes
	for i := range w.layout.regions {
		r := &w.layout.regions[i]
		u := w.used(r)
		if r.snapOff >= 0 {
			copy(s.buf[r.snapOff:r.snapOff+u], w.mem[r.off:r.off+u])
			continue
		}
		pos += copy(s.buf[pos:pos+u], w.mem[r.off:r.off+u])
	}
	s.layout = w.layout
	s.hashed = false
}

// Snapshot returns a new snapshot of w (allocates; use SnapshotInto with a
// reused Snapshot in loops).
func (w *World) Snapshot() *Snapshot {
	s := new(Snapshot)
	w.SnapshotInto(s)
	return s
}

// Restore makes w byte-identical to the world s was taken from (lengths
// included; bytes past what is in use are zeroed). It fails with ErrLayout
// if s is empty or of another layout, leaving w unchanged.
func (w *World) Restore(s *Snapshot) error {
	if s.layout == nil || s.layout.hash != w.layout.hash {
		return fmt.Errorf("world: restore: %w", ErrLayout)
	}
	l := w.layout
	// Tables and grids first (their old lengths are still in w's meta
	// regions), then the meta regions with the snapshot's lengths.
	pos := l.fixedBytes
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		if r.snapOff >= 0 {
			continue
		}
		nu := snapUsed(s, r)
		ou := w.used(r)
		copy(w.mem[r.off:r.off+nu], s.buf[pos:pos+nu])
		if ou > nu {
			clear(w.mem[r.off+nu : r.off+ou])
		}
		pos += nu
	}
	for i := range l.regions {
		if r := &l.regions[i]; r.snapOff >= 0 {
			copy(w.mem[r.off:r.off+r.capBytes], s.buf[r.snapOff:r.snapOff+r.capBytes])
		}
	}
	return nil
}

// Hash returns the hash of the snapshot's world, equal to World.Hash at the
// time of the snapshot. It is computed on first use and then cached.
func (s *Snapshot) Hash() uint64 {
	if !s.hashed && s.layout != nil {
		l := s.layout
		h := xxh3.Hash(s.buf[:l.metaSize])
		pos := l.fixedBytes
		for i := 1; i < len(l.regions); i++ {
			r := &l.regions[i]
			n := snapUsed(s, r)
			if r.snapOff >= 0 {
				h = chainHash(h, xxh3.Hash(s.buf[r.snapOff:r.snapOff+n]))
				continue
			}
			h = chainHash(h, xxh3.Hash(s.buf[pos:pos+n]))
			pos += n
		}
		s.hash = h
		s.hashed = true
	}
	return s.hash
}

// Len returns the number of bytes the snapshot holds (the world's bytes in
// use).
func (s *Snapshot) Len() int { return len(s.buf) }

// Layout returns the layout of the snapshot's world, or nil if s is empty.
func (s *Snapshot) Layout() *Layout { return s.layout }

// CopyFrom makes s a copy of src (reusing s's buffer).
func (s *Snapshot) CopyFrom(src *Snapshot) {
	if cap(s.buf) < len(src.buf) {
		s.buf = alignedBytes(len(src.buf) + len(src.buf)/4)
	}
	s.buf = s.buf[:len(src.buf)]
	copy(s.buf, src.buf)
	s.layout, s.hash, s.hashed = src.layout, src.hash, src.hashed
}

// AppendBytes appends the snapshot's bytes (the world's bytes in use,
// region by region) to dst.
func (s *Snapshot) AppendBytes(dst []byte) []byte { return append(dst, s.buf...) }

// PageHashes appends the page hashes of the snapshot's world (equal to
// World.PageHashes at the time of the snapshot) to dst[:0] and returns it;
// tmp is a page-sized work buffer (nil: one is allocated).
func (s *Snapshot) PageHashes(dst []uint64, tmp []byte) []uint64 {
	dst = dst[:0]
	if s.layout == nil {
		return dst
	}
	if len(tmp) < s.layout.pageSize {
		tmp = make([]byte, s.layout.pageSize)
	}
	src := pageSource{snap: s}
	return src.pageHashes(dst, tmp[:s.layout.pageSize])
}
