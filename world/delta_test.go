package world

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

var allCompressions = []Compression{CompressAuto, CompressNone, CompressS2, CompressZstd}

func TestDeltaRoundTrip(t *testing.T) {
	for _, ps := range []int{512, 4096} {
		tw := newTestSchema(t, ps)
		r := rand.New(rand.NewPCG(3, uint64(ps)))
		base, target, got := tw.new(t), tw.new(t), tw.new(t)
		var bs Snapshot
		for round := range 60 {
			c := allCompressions[round%len(allCompressions)]
			base.SetCompression(c)
			target.SetCompression(c)
			tw.mutate(base, r, r.IntN(300))
			if err := target.CopyFrom(base); err != nil {
				t.Fatal(err)
			}
			tw.mutate(target, r, r.IntN(40))
			base.SnapshotInto(&bs)

			// Delta against a snapshot.
			enc, err := target.AppendDelta(nil, &bs)
			if err != nil {
				t.Fatal(err)
			}
			tw.mutate(got, r, 5) // whatever got held before is replaced
			if err := got.DecodeDelta(enc, &bs); err != nil {
				t.Fatalf("round %d (%v): %v", round, c, err)
			}
			if !got.Equal(target) || got.Hash() != target.Hash() {
				t.Fatalf("round %d: delta round trip differs", round)
			}
			checkZeroTail(t, got)

			// Whole world.
			enc = target.AppendWorld(enc[:0])
			tw.mutate(got, r, 5)
			if err := got.DecodeWorld(enc); err != nil {
				t.Fatal(err)
			}
			if !got.Equal(target) {
				t.Fatal("whole-world round trip differs")
			}

			// Pages the receiver (holding base) lacks.
			if err := got.CopyFrom(base); err != nil {
				t.Fatal(err)
			}
			theirs := got.PageHashes(nil)
			enc, err = target.AppendPages(enc[:0], theirs)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.ApplyPages(enc); err != nil {
				t.Fatal(err)
			}
			if !got.Equal(target) {
				t.Fatal("pages round trip differs")
			}
			checkZeroTail(t, got)
		}
	}
}

func TestDeltaWrongBase(t *testing.T) {
	tw := newTestSchema(t, 0)
	r := rand.New(rand.NewPCG(4, 4))
	a, b := tw.new(t), tw.new(t)
	tw.mutate(a, r, 100)
	var sa, sb Snapshot
	a.SnapshotInto(&sa)
	tw.mutate(a, r, 10)
	b.SnapshotInto(&sb)
	enc, _ := a.AppendDelta(nil, &sa)
	before := b.Hash()
	if err := b.DecodeDelta(enc, &sb); !errors.Is(err, ErrBase) {
		t.Fatalf("wrong base: %v", err)
	}
	if err := b.DecodeWorld(enc); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("delta decoded as world: %v", err)
	}
	if b.Hash() != before {
		t.Fatal("failed decode changed the world")
	}
	// Pages applied to a world that changed since its hashes were taken.
	if err := b.CopyFrom(a); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.entities.Add(a, testEntity{ID: 99})
	theirs := b.PageHashes(nil)
	enc, _ = a.AppendPages(nil, theirs)
	tw.sand.Set(b, 0, 0, 77) // the receiver moved on
	h := b.Hash()
	if err := b.ApplyPages(enc); !errors.Is(err, ErrMismatch) {
		t.Fatalf("stale pages: %v", err)
	}
	if b.Hash() != h {
		t.Fatal("failed apply changed the world")
	}
}

func TestDiffPagesExact(t *testing.T) {
	tw := newTestSchema(t, 512)
	r := rand.New(rand.NewPCG(5, 5))
	w := tw.new(t)
	tw.mutate(w, r, 500)
	var snap Snapshot
	for range 50 {
		w.SnapshotInto(&snap)
		before := append([]byte(nil), w.mem...)
		h0 := w.PageHashes(nil)
		tw.mutate(w, r, r.IntN(5))
		h1 := w.PageHashes(nil)
		ps := w.PageSize()
		var want []int
		for p := 0; p < w.PageCount(); p++ {
			if string(before[p*ps:(p+1)*ps]) != string(w.mem[p*ps:(p+1)*ps]) {
				want = append(want, p)
			}
		}
		got := DiffPages(h0, h1, nil)
		if len(got) != len(want) {
			t.Fatalf("DiffPages %v, changed pages %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("DiffPages %v, changed pages %v", got, want)
			}
		}
	}
	if d := DiffPages([]uint64{1, 2}, []uint64{1, 3, 4}, nil); len(d) != 2 || d[0] != 1 || d[1] != 2 {
		t.Fatalf("DiffPages of unequal lengths: %v", d)
	}
}

// TestDecodeRejects checks the decoder's validation on hand-made pages.
func TestDecodeRejects(t *testing.T) {
	tw := newTestSchema(t, 512)
	w := tw.new(t)
	_, _ = tw.entities.Add(w, testEntity{ID: 1, Alive: true})
	w.SetCompression(CompressNone)
	good := w.AppendWorld(nil)
	got := tw.new(t)
	if err := got.DecodeWorld(good); err != nil {
		t.Fatal(err)
	}
	l := w.layout
	entPage := l.regions[l.pageRegion[0]+2].firstPage // entities region (after meta)
	for _, r := range l.regions {
		if r.name == "entities" {
			entPage = r.firstPage
		}
	}
	cases := map[string]func(m []byte){
		"bool byte 2":       func(m []byte) { m[entPage*512+19] = 2 },
		"length beyond cap": func(m []byte) { binary.LittleEndian.PutUint32(m[8:], 301) },
		"bytes past in use": func(m []byte) { m[entPage*512+40+3] = 1 },
		"layout hash":       func(m []byte) { m[0] ^= 1 },
		"meta free space":   func(m []byte) { m[511] = 1 },
	}
	// The flag value's byte: find it from the handle.
	cases["value bool byte"] = func(m []byte) { m[tw.flag.s.off] = 3 }
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			m := append([]byte(nil), w.mem...)
			corrupt(m)
			enc := encodeRawWorld(l, m, w.Hash())
			before := got.Hash()
			err := got.DecodeWorld(enc)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
			if got.Hash() != before {
				t.Fatal("rejected decode changed the world")
			}
		})
	}
}

// encodeRawWorld encodes arena bytes m as a whole-world encoding with every
// page sent raw (bypassing the encoder's own invariants).
func encodeRawWorld(l *Layout, m []byte, target uint64) []byte {
	b := []byte{magic, kindWhole << 4}
	b = binary.LittleEndian.AppendUint64(b, l.hash)
	b = binary.LittleEndian.AppendUint64(b, l.EmptyHash())
	b = binary.LittleEndian.AppendUint64(b, target)
	b = binary.AppendUvarint(b, uint64(l.Pages()))
	for p := 0; p < l.Pages(); p++ {
		b = append(b, 0, opNone)
		b = appendPacked(b, m[p*l.pageSize:(p+1)*l.pageSize])
	}
	return b
}

func TestPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	page := make([]byte, 4096)
	out := make([]byte, 4096)
	for range 300 {
		clear(page)
		density := r.IntN(100) + 1
		for i := range page {
			if r.IntN(100) < density {
				page[i] = byte(r.IntN(256))
			}
		}
		enc := appendPacked(nil, page)
		n, err := unpack(out, enc)
		if err != nil || n != len(enc) || string(out) != string(page) {
			t.Fatalf("pack round trip: n=%d len=%d err=%v", n, len(enc), err)
		}
		for _, s := range []int{1, 3, 7, 24, 256} {
			tr := make([]byte, 4096)
			back := make([]byte, 4096)
			transpose(tr, page, s)
			untranspose(back, tr, s)
			if string(back) != string(page) {
				t.Fatalf("transpose %d round trip", s)
			}
			rowDiff(tr, page, s)
			rowUndiff(tr, s)
			if string(tr) != string(page) {
				t.Fatalf("row diff %d round trip", s)
			}
		}
	}
}

func TestLaneOps(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for range 200 {
		n := r.IntN(100)
		a, b := make([]byte, n), make([]byte, n)
		for i := range a {
			a[i], b[i] = byte(r.IntN(256)), byte(r.IntN(256))
		}
		x, s, d, rd := make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n)
		xorInto(x, a, b)
		subInto(s, a, b)
		addInto(d, a, b)
		stride := 1 + r.IntN(20)
		if stride <= n {
			rowDiff(rd, a, stride)
		}
		for i := range a {
			if x[i] != a[i]^b[i] || s[i] != a[i]-b[i] || d[i] != a[i]+b[i] {
				t.Fatalf("lane op wrong at %d: %x %x", i, a[i], b[i])
			}
			if stride <= n && i >= stride && rd[i] != a[i]^a[i-stride] {
				t.Fatalf("rowDiff wrong at %d", i)
			}
		}
	}
}

func TestRowDiffTransposed(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for range 300 {
		n := 1 + r.IntN(600)
		stride := 1 + r.IntN(n)
		x := make([]byte, n)
		for i := range x {
			x[i] = byte(r.IntN(4))
		}
		rd, want, tr, got := make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n)
		rowDiff(rd, x, stride)
		transpose(want, rd, stride)
		transpose(tr, x, stride)
		rowDiffTransposed(got, tr, stride)
		if string(got) != string(want) {
			t.Fatalf("n=%d stride=%d: rowDiffTransposed differs", n, stride)
		}
	}
}

func TestPageListRepair(t *testing.T) {
	tw := newTestSchema(t, 512)
	r := rand.New(rand.NewPCG(12, 12))
	server, client := tw.new(t), tw.new(t)
	var tmp []byte
	for round := range 40 {
		tw.mutate(server, r, 200)
		if err := client.CopyFrom(server); err != nil {
			t.Fatal(err)
		}
		tw.mutate(client, r, round%5) // the client diverged a little
		snap := server.Snapshot()
		theirs := snap.PageHashes(nil, tmp)
		if want := server.PageHashes(nil); len(want) != len(theirs) || DiffPages(want, theirs, nil) != nil {
			t.Fatal("Snapshot.PageHashes differs from World.PageHashes")
		}
		diff := DiffPages(client.PageHashes(nil), theirs, nil)
		enc, err := server.AppendPageList(nil, diff)
		if err != nil {
			t.Fatal(err)
		}
		if err := client.ApplyPages(enc); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !client.Equal(server) {
			t.Fatal("repaired client differs")
		}
		checkZeroTail(t, client)
	}
	if _, err := server.AppendPageList(nil, []int{2, 1}); !errors.Is(err, ErrPageList) {
		t.Fatal("unordered page list accepted")
	}
	if _, err := server.AppendPageList(nil, []int{server.PageCount()}); !errors.Is(err, ErrPageList) {
		t.Fatal("page beyond the world accepted")
	}
}

// TestEncodingSizeBound fills a world with noise (the worst case for
// packing) and checks every encoding stays within MaxEncodingSize, and that
// a world of another layout refuses it.
func TestEncodingSizeBound(t *testing.T) {
	tw := newTestSchema(t, 512)
	w := tw.new(t)
	r := rand.New(rand.NewPCG(13, 13))
	for i := 0; i < tw.entities.Cap(); i++ {
		_, _ = tw.entities.Add(w, testEntity{ID: r.Uint32(), X: r.Int32(), Y: r.Int32(), VX: int16(r.Uint32()), HP: uint16(r.Uint32()), Alive: true})
	}
	for i := range tw.sand.Cells(w) {
		tw.sand.Cells(w)[i] = uint8(r.Uint32())
	}
	limit := w.Layout().MaxEncodingSize()
	empty := tw.new(t).Snapshot()
	for _, c := range allCompressions {
		w.SetCompression(c)
		enc := w.AppendWorld(nil)
		d, _ := w.AppendDelta(nil, empty)
		p, _ := w.AppendPages(nil, make([]uint64, w.PageCount()))
		for _, e := range [][]byte{enc, d, p} {
			if len(e) > limit {
				t.Fatalf("compression %d: %d-byte encoding exceeds MaxEncodingSize %d", c, len(e), limit)
			}
		}
	}
	other := NewSchema()
	AddGrid[uint8](other, "sand", 64, 48)
	ow, _ := New(other)
	if err := ow.DecodeWorld(w.AppendWorld(nil)); !errors.Is(err, ErrLayout) {
		t.Fatalf("decode into another layout: %v", err)
	}
}
