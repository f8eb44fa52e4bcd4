package webdoom

import "github.com/rewindnet/rewind/relay/webdoom/wire"

// webDoomSlabTics is how many bundles one history slab holds: 1,024 × 38
// bytes, so an hour at 35 Hz (126,000 tics, 4.8 MB) is 124 slabs.
const webDoomSlabTics = 1024

// History is a read-only view of a session's sealed bundles from
// tic 0. Sealed bytes are never rewritten and slabs are never moved, so a
// view handed to a sender goroutine stays valid while the core seals on.
type History struct {
	slabs [][]byte
	n     int
}

// Len is the number of bundles in the view.
func (h History) Len() int { return h.n }

// Bundle returns bundle i (its tic is i), aliasing the history.
func (h History) Bundle(i int) []byte {
	off := (i % webDoomSlabTics) * wire.BundleSize
	return h.slabs[i/webDoomSlabTics][off : off+wire.BundleSize : off+wire.BundleSize]
}

// Bytes is the memory the view's slabs hold.
func (h History) Bytes() int { return len(h.slabs) * webDoomSlabTics * wire.BundleSize }

// next returns room for bundle h.n, adding a slab when needed, and counts it.
func (h *History) next() []byte {
	if h.n%webDoomSlabTics == 0 {
		h.slabs = append(h.slabs, make([]byte, webDoomSlabTics*wire.BundleSize))
	}
	h.n++
	return h.Bundle(h.n - 1)
}

// view returns an immutable view of the bundles sealed so far.
func (h *History) view() History {
	return History{slabs: h.slabs[:len(h.slabs):len(h.slabs)], n: h.n}
}
