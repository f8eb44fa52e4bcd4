package world

import (
	"encoding/binary"
	"github.com/klauspost/compress/s2"

	"fmt"
)

// maxPayload bounds the raw (uncompressed) payload of any valid encoding of
// layout l: no decoder allocates more than this for it.
func (l *Layout) maxPayload() int {
	return l.Pages()*(3*l.pageSize+32) + 16
}

// MaxEncodingSize returns the largest encoding (of any kind and
// compression) a world of layout l can produce: a bound for buffers that
// reassemble a transfer before decoding it.
func (l *Layout) MaxEncodingSize() int {
	return headerLen + binary.MaxVarintLen64 + s2.MaxEncodedLen(l.maxPayload()) + 64
}

// DecodeWorld makes w the world encoded by AppendWorld. On error w is
// unchanged.
func (w *World) DecodeWorld(data []byte) error {
	src := pageSource{empty: w.layout}
	return w.decode(data, kindWhole, w.layout.EmptyHash(), &src)
}

// DecodeDelta makes w the world encoded by AppendDelta against base (a
// snapshot of the same layout and the same hash as the encoder's base). On
// error w is unchanged.
func (w *World) DecodeDelta(data []byte, base *Snapshot) error {
	if base == nil || base.layout == nil || base.layout.hash != w.layout.hash {
		return fmt.Errorf("world: decode delta: %w", ErrLayout)
	}
	src := pageSource{snap: base}
	return w.decode(data, kindDelta, base.Hash(), &src)
}

// ApplyPages applies pages encoded by AppendPages (against w's own page
// hashes) to w. The result must hash to the encoder's world hash, so pages
// that changed in w since its hashes were taken make it fail. On error w is
// unchanged.
func (w *World) ApplyPages(data []byte) error {
	src := pageSource{world: w}
	return w.decode(data, kindPages, 0, &src)
}

// EncodingInfo describes an encoding's header.
type EncodingInfo struct {
	Kind       string // "world", "delta" or "pages"
	LayoutHash uint64 // Layout.Hash of the encoder's world
	BaseHash   uint64 // empty-world hash (world), base snapshot hash (delta), 0 (pages)
	TargetHash uint64 // World.Hash of the encoded world
}

// ReadEncodingInfo parses the header of an encoding made by AppendWorld,
// AppendDelta or AppendPages.
func ReadEncodingInfo(data []byte) (EncodingInfo, error) {
	var e EncodingInfo
	if len(data) < headerLen {
		return e, fmt.Errorf("%w: %d bytes is shorter than a header", ErrCorrupt, len(data))
	}
	if data[0] != magic {
		return e, fmt.Errorf("%w: bad magic 0x%02x", ErrCorrupt, data[0])
	}
	switch data[1] >> 4 {
	case kindWhole:
		e.Kind = "world"
	case kindDelta:
		e.Kind = "delta"
	case kindPages:
		e.Kind = "pages"
	default:
		return e, fmt.Errorf("%w: unknown encoding kind %d", ErrCorrupt, data[1]>>4)
	}
	e.LayoutHash = binary.LittleEndian.Uint64(data[2:])
	e.BaseHash = binary.LittleEndian.Uint64(data[10:])
	e.TargetHash = binary.LittleEndian.Uint64(data[18:])
	return e, nil
}

func (w *World) decode(data []byte, kind byte, baseHash uint64, src *pageSource) error {
	l := w.layout
	info, err := ReadEncodingInfo(data)
	if err != nil {
		return err
	}
	if data[1]>>4 != kind {
		return fmt.Errorf("%w: got a %s encoding", ErrCorrupt, info.Kind)
	}
	if info.LayoutHash != l.hash {
		return fmt.Errorf("world: decode: %w", ErrLayout)
	}
	if kind != kindPages && info.BaseHash != baseHash {
		return fmt.Errorf("world: decode: %w", ErrBase)
	}
	sc := w.scratch()
	payload := data[headerLen:]
	if wire := data[1] & 0x0f; wire != wireNone {
		raw, n := binary.Uvarint(payload)
		if n <= 0 || raw > uint64(l.maxPayload()) {
			return fmt.Errorf("%w: bad payload length", ErrCorrupt)
		}
		sc.payload, err = decompress(sc.payload, payload[n:], wire, int(raw))
		if err != nil {
			return err
		}
		payload = sc.payload
	}

	// Stage: start from the base, apply pages, validate, then copy to w.
	if w.stage == nil {
		w.stage = NewFromLayout(l)
	}
	st := w.stage
	if w.stageDirty {
		clear(st.mem)
		w.stageDirty = false
	}
	switch kind {
	case kindWhole:
		st.Reset()
	case kindDelta:
		if err := st.Restore(src.snap); err != nil {
			return err
		}
	case kindPages:
		if err := st.CopyFrom(w); err != nil {
			return err
		}
	}
	sc.oldUsed = sc.oldUsed[:0]
	for i := range l.regions {
		sc.oldUsed = append(sc.oldUsed, st.used(&l.regions[i]))
	}
	pages := l.Pages()
	if cap(sc.written) < pages {
		sc.written = make([]bool, pages)
	}
	sc.written = sc.written[:pages]
	clear(sc.written)

	w.stageDirty = true
	if err := w.applyEntries(st, payload, src, sc); err != nil {
		return err
	}
	if err := l.validate(st.mem, sc.oldUsed, sc.written); err != nil {
		return err
	}
	if h := st.Hash(); h != info.TargetHash {
		return fmt.Errorf("%w: decoded world hash %016x, encoder had %016x", ErrMismatch, h, info.TargetHash)
	}
	w.stageDirty = false
	return w.CopyFrom(st)
}

// applyEntries decodes the page entries of payload into st.
func (w *World) applyEntries(st *World, payload []byte, src *pageSource, sc *coderScratch) error {
	l := w.layout
	ps := l.pageSize
	pages := l.Pages()
	cnt, n := binary.Uvarint(payload)
	if n <= 0 || cnt > uint64(pages) {
		return fmt.Errorf("%w: bad page count", ErrCorrupt)
	}
	b := payload[n:]
	prev := -1
	for e := uint64(0); e < cnt; e++ {
		gap, n := binary.Uvarint(b)
		if n <= 0 || gap >= uint64(pages-prev-1) {
			return fmt.Errorf("%w: bad page index", ErrCorrupt)
		}
		b = b[n:]
		i := prev + 1 + int(gap)
		prev = i
		if len(b) == 0 {
			return fmt.Errorf("%w: truncated page %d", ErrCorrupt, i)
		}
		k := b[0]
		b = b[1:]
		out := st.mem[i*ps : (i+1)*ps]
		sc.written[i] = true
		switch {
		case k == pageZero:
			clear(out)
			continue
		case k == pageRef:
			nref, n := binary.Uvarint(b)
			if n <= 0 || nref >= uint64(pages) {
				return fmt.Errorf("%w: page %d: bad reference", ErrCorrupt, i)
			}
			b = b[n:]
			copy(out, src.page(int(nref), sc.tmp))
			continue
		case k > 0x0f || k&3 == 3:
			return fmt.Errorf("%w: page %d: unknown kind 0x%02x", ErrCorrupt, i, k)
		}
		stride := 0
		if k&(opRow|opTranspose) != 0 {
			s, n := binary.Uvarint(b)
			if n <= 0 || s == 0 || s >= uint64(ps) {
				return fmt.Errorf("%w: page %d: bad stride", ErrCorrupt, i)
			}
			b = b[n:]
			stride = int(s)
		}
		used, err := unpack(sc.t1, b)
		if err != nil {
			return fmt.Errorf("page %d: %w", i, err)
		}
		b = b[used:]
		x := sc.t1
		if k&opTranspose != 0 {
			untranspose(sc.t2, x, stride)
			x = sc.t2
		}
		if k&opRow != 0 {
			rowUndiff(x, stride)
		}
		switch k & 3 {
		case opNone:
			copy(out, x)
		case opXor:
			xorInto(out, x, src.page(i, sc.tmp))
		case opSub:
			addInto(out, x, src.page(i, sc.tmp))
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after the last page", ErrCorrupt, len(b))
	}
	return nil
}

// validate checks that mem is a valid world of layout l: the layout hash
// in place, table lengths within capacity, bytes past what is in use zero,
// bools 0 or 1. oldUsed are the regions' bytes in use before the written
// pages were replaced (the base was valid, so only those ranges and the
// written pages can hold bytes past the new lengths).
func (l *Layout) validate(mem []byte, oldUsed []int, written []bool) error {
	if binary.LittleEndian.Uint64(mem) != l.hash {
		return fmt.Errorf("%w: layout hash overwritten", ErrCorrupt)
	}
	for _, f := range l.metaFree {
		if !isZero(mem[f[0]:f[1]]) {
			return fmt.Errorf("%w: non-zero bytes in unused meta space", ErrCorrupt)
		}
	}
	ps := l.pageSize
	for ri := range l.regions {
		r := &l.regions[ri]
		used := r.capBytes
		if r.lenOff >= 0 {
			n := binary.LittleEndian.Uint32(mem[r.lenOff:])
			if uint64(n) > uint64(r.count) {
				return fmt.Errorf("%w: table %q length %d beyond capacity %d", ErrCorrupt, r.name, n, r.count)
			}
			used = int(n) * r.elem
		}
		if ri > 0 {
			end := oldUsed[ri]
			for p := r.firstPage + r.pages - 1; p >= r.firstPage; p-- {
				if written[p] {
					end = max(end, (p+1)*ps-r.off)
					break
				}
			}
			if end > used && !isZero(mem[r.off+used:r.off+end]) {
				return fmt.Errorf("%w: %q: non-zero bytes past what is in use", ErrCorrupt, r.name)
			}
		}
		if len(r.bools) == 0 {
			continue
		}
		n := used / r.elem
		for e := 0; e < n; e++ {
			rec := mem[r.off+e*r.elem:]
			for _, b := range r.bools {
				if rec[b] > 1 {
					return fmt.Errorf("%w: %q: bool byte %d in element %d", ErrCorrupt, r.name, rec[b], e)
				}
			}
		}
	}
	return nil
}
