package world

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Difference is one way in which two worlds of the same layout differ, as
// the desync debugger reports it: a field of a table's row, of a grid's
// cell or of a value, or a table's length.
type Difference struct {
	// Table is the name of the table, grid or value.
	Table string
	// Kind is "table", "grid" or "value".
	Kind string
	// Row is the table's row or the grid's cell index (y*width + x); 0 for
	// a value; -1 for a table's length.
	Row int
	// X and Y are a grid cell's column and row.
	X, Y int
	// Field is the field's path within the record ("VX", "Pos.A",
	// "Items[2]"), "-" for a record that is a single scalar, "len" for a
	// table's length, and "row" for a row only one of the worlds has.
	Field string
	// A and B are the field's values in the first and the second world
	// ("absent" or "present" for a row only one has).
	A, B string
}

// Format returns the difference as key=value pairs with the two worlds
// labelled a and b: "table=avatars row=3 field=VX a=512 b=768"; a grid's
// cell as "table=sand cell=10,20 field=- a=1 b=0"; a table's length as
// "table=avatars row=- field=len a=3 b=4".
func (d Difference) Format(a, b string) string {
	where := "row=" + strconv.Itoa(d.Row)
	switch {
	case d.Kind == "grid":
		where = fmt.Sprintf("cell=%d,%d", d.X, d.Y)
	case d.Row < 0:
		where = "row=-"
	}
	return fmt.Sprintf("table=%s %s field=%s %s=%s %s=%s", d.Table, where, d.Field, a, d.A, b, d.B)
}

// String formats the difference with the labels the desync debugger uses
// for its own world and the server's: "table=avatars row=3 field=VX
// ours=512 server=768".
func (d Difference) String() string { return d.Format("ours", "server") }

// image is a world's bytes by part: the meta region, then the bytes in use
// of every table and grid, in the order of the shape's parts after the
// values.
type image struct {
	sh      *Shape
	meta    []byte
	regions [][]byte
}

// image returns w's bytes by part (aliasing w).
func (w *World) image() image {
	l := w.layout
	im := image{sh: l.shape, meta: w.mem[:l.metaSize]}
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		im.regions = append(im.regions, w.mem[r.off:r.off+w.used(r)])
	}
	return im
}

// Diff compares worlds a and b (of the same layout) field by field and
// returns the first limit differences (all when limit ≤ 0) in layout order —
// values, then tables and grids in registration order, rows and cells in
// index order — and how many there are in all. Worlds of different
// layouts are an error wrapping ErrLayout.
func Diff(a, b *World, limit int) ([]Difference, int, error) {
	return diffImages(a.image(), b.image(), limit)
}

// diffImages is Diff on images.
func diffImages(a, b image, limit int) ([]Difference, int, error) {
	if a.sh != b.sh && (a.sh.LayoutHash != b.sh.LayoutHash || !reflect.DeepEqual(a.sh, b.sh)) {
		return nil, 0, fmt.Errorf("world: diff of layouts %016x and %016x: %w", a.sh.LayoutHash, b.sh.LayoutHash, ErrLayout)
	}
	dc := differ{max: limit}
	ri := 0
	for i := range a.sh.Parts {
		p := &a.sh.Parts[i]
		switch p.Kind {
		case "value":
			dc.record(p, 0, 0, 0, a.meta[p.Off:p.Off+p.Elem], b.meta[p.Off:p.Off+p.Elem])
		case "table":
			ra, rb := a.regions[ri], b.regions[ri]
			ri++
			la, lb := len(ra)/p.Elem, len(rb)/p.Elem
			if la != lb {
				dc.add(Difference{Table: p.Name, Kind: p.Kind, Row: -1, Field: "len", A: strconv.Itoa(la), B: strconv.Itoa(lb)})
			}
			for r := range min(la, lb) {
				dc.record(p, r, 0, 0, ra[r*p.Elem:(r+1)*p.Elem], rb[r*p.Elem:(r+1)*p.Elem])
			}
			for r := min(la, lb); r < max(la, lb); r++ {
				d := Difference{Table: p.Name, Kind: p.Kind, Row: r, Field: "row", A: "absent", B: "present"}
				if la > lb {
					d.A, d.B = d.B, d.A
				}
				dc.add(d)
			}
		case "grid":
			ra, rb := a.regions[ri], b.regions[ri]
			ri++
			if bytes.Equal(ra, rb) {
				continue
			}
			for c := range p.Count {
				dc.record(p, c, c%p.Width, c/p.Width, ra[c*p.Elem:(c+1)*p.Elem], rb[c*p.Elem:(c+1)*p.Elem])
			}
		}
	}
	return dc.out, dc.n, nil
}

// differ collects differences up to max and counts them all.
type differ struct {
	max int
	n   int
	out []Difference
}

func (dc *differ) add(d Difference) {
	dc.n++
	if dc.max <= 0 || len(dc.out) < dc.max {
		dc.out = append(dc.out, d)
	}
}

// record adds a difference per field element in which records ra and rb
// (of part p, at row or cell idx, column x and row y) differ.
func (dc *differ) record(p *Part, idx, x, y int, ra, rb []byte) {
	if bytes.Equal(ra, rb) {
		return
	}
	for _, f := range p.Fields {
		for e := range f.Count {
			o := f.Off + e*f.Size
			ea, eb := ra[o:o+f.Size], rb[o:o+f.Size]
			if bytes.Equal(ea, eb) {
				continue
			}
			name := f.Name
			if f.Count > 1 {
				name += "[" + strconv.Itoa(e) + "]"
			}
			if name == "" {
				name = "-"
			}
			dc.add(Difference{Table: p.Name, Kind: p.Kind, Row: idx, X: x, Y: y, Field: name,
				A: formatScalar(ea, f.Kind), B: formatScalar(eb, f.Kind)})
		}
	}
}

// formatScalar formats the little-endian scalar b of kind k.
func formatScalar(b []byte, k byte) string {
	le := binary.LittleEndian
	switch k {
	case 'b':
		if b[0] == 0 {
			return "false"
		}
		if b[0] == 1 {
			return "true"
		}
		return "bool(" + strconv.Itoa(int(b[0])) + ")"
	case 'i':
		switch len(b) {
		case 1:
			return strconv.FormatInt(int64(int8(b[0])), 10)
		case 2:
			return strconv.FormatInt(int64(int16(le.Uint16(b))), 10)
		case 4:
			return strconv.FormatInt(int64(int32(le.Uint32(b))), 10)
		case 8:
			return strconv.FormatInt(int64(le.Uint64(b)), 10)
		}
	case 'u':
		switch len(b) {
		case 1:
			return strconv.FormatUint(uint64(b[0]), 10)
		case 2:
			return strconv.FormatUint(uint64(le.Uint16(b)), 10)
		case 4:
			return strconv.FormatUint(uint64(le.Uint32(b)), 10)
		case 8:
			return strconv.FormatUint(le.Uint64(b), 10)
		}
	case 'f':
		switch len(b) {
		case 4:
			return strconv.FormatFloat(float64(math.Float32frombits(le.Uint32(b))), 'g', -1, 32)
		case 8:
			return strconv.FormatFloat(math.Float64frombits(le.Uint64(b)), 'g', -1, 64)
		}
	case 'c':
		h := len(b) / 2
		re, im := formatScalar(b[:h], 'f'), formatScalar(b[h:], 'f')
		if im[0] != '-' {
			im = "+" + im
		}
		return "(" + re + im + "i)"
	}
	return hex.EncodeToString(b)
}
