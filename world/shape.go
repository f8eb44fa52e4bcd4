package world

import (
	"fmt"
	"reflect"
)

// maxFields bounds the fields one record type is described by: an array of
// structs expands into a field per element's leaf up to this many, past it
// the array is one field of raw bytes.
const maxFields = 4096

// Field is one leaf of a record type as the desync debugger sees it: a
// scalar (or an array of scalars) at a byte offset within the record.
type Field struct {
	// Name is the path within the record ("X", "Pos.A", "Items[2].ID"),
	// empty for a record that is itself a scalar or an array of scalars.
	Name string `json:"name"`
	// Off is the byte offset within the record.
	Off int `json:"off"`
	// Kind is 'i' (signed int), 'u' (unsigned int), 'f' (float), 'c'
	// (complex), 'b' (bool) or 'x' (raw bytes).
	Kind byte `json:"kind"`
	// Size is the size of one element in bytes.
	Size int `json:"size"`
	// Count is the number of elements: 1 for a scalar, the length of an
	// array of scalars (its elements are Name[0], Name[1], …).
	Count int `json:"count"`
}

// Part is one table, grid or value of a world's Shape.
type Part struct {
	// Name is the name it was registered under.
	Name string `json:"name"`
	// Kind is "value", "table" or "grid".
	Kind string `json:"kind"`
	// Off is the byte offset of its data in the world.
	Off int `json:"off"`
	// Elem is the size of a record, cell or value in bytes.
	Elem int `json:"elem"`
	// Count is the capacity in records (tables), the cells (grids) or 1.
	Count int `json:"count"`
	// Width is a grid's number of columns (0 otherwise).
	Width int `json:"width,omitempty"`
	// LenOff is the byte offset of a table's uint32 length in the world
	// (0 for grids and values), or, when LenPart is set, within that part.
	LenOff int `json:"len_off,omitempty"`
	// LenPart is, for a table of a private or server scene, 1 + the index
	// of the part holding its length: the scene's meta region, described
	// as a grid of one raw cell named "scene:NAME" (its values are not
	// listed one by one). 0: the length is in the meta region.
	LenPart int `json:"len_part,omitempty"`
	// Fields are the leaves of the record type.
	Fields []Field `json:"fields"`
}

// Shape describes a world's layout field by field, for diffing worlds and
// reading world dumps without the game's types: every value (in the meta
// region, registration order), then every table and grid (layout order).
// It is derived from the registrations, like the Layout, but is not part of
// the layout hash.
type Shape struct {
	// LayoutHash is the hash of the layout it describes.
	LayoutHash uint64 `json:"layout_hash"`
	// MetaSize is the size of the meta region: the layout hash, the
	// table lengths and the values.
	MetaSize int `json:"meta_size"`
	// Parts lists the values, then the tables and grids.
	Parts []Part `json:"parts"`
}

// Shape returns the field-by-field description of the layout.
func (l *Layout) Shape() *Shape { return l.shape }

// buildShape describes the frozen schema s as a Shape.
func (s *Schema) buildShape(l *Layout) *Shape {
	sh := &Shape{LayoutHash: l.hash, MetaSize: l.metaSize}
	for _, v := range s.values {
		if v.scene == nil {
			sh.Parts = append(sh.Parts, Part{Name: v.name, Kind: "value", Off: v.off, Elem: v.info.size, Count: 1, Fields: v.info.fields})
		}
	}
	// Tables and grids in layout order (the public ones, then each
	// scene's meta region and its tables and grids).
	byOff := make(map[int]*slot, len(s.regions))
	for _, r := range s.regions {
		byOff[r.off] = r
	}
	meta := 0 // 1 + the part of the current scene's meta region
	for i := 1; i < len(l.regions); i++ {
		rg := &l.regions[i]
		if rg.kind == kindSceneMeta {
			sh.Parts = append(sh.Parts, Part{Name: rg.name, Kind: "grid", Off: rg.off, Elem: rg.capBytes, Count: 1, Width: 1,
				Fields: []Field{{Kind: 'x', Size: rg.capBytes, Count: 1}}})
			meta = len(sh.Parts)
			continue
		}
		r := byOff[rg.off]
		p := Part{Name: r.name, Off: r.off, Elem: r.info.size, Count: r.count, Fields: r.info.fields}
		if r.kind == kindTable {
			p.Kind, p.LenOff = "table", r.lenOff
			if rg.scene != 0 {
				p.LenPart, p.LenOff = meta, r.lenOff-sh.Parts[meta-1].Off
			}
		} else {
			p.Kind, p.Width = "grid", r.width
		}
		sh.Parts = append(sh.Parts, p)
	}
	return sh
}

// leafFields returns the fields of plain type t (already checked by
// checkPlain).
func leafFields(t reflect.Type) []Field {
	var fs []Field
	if !appendFields(&fs, t, "", 0) {
		return []Field{{Name: "", Off: 0, Kind: 'x', Size: int(t.Size()), Count: 1}}
	}
	return fs
}

// appendFields appends the leaves of t at offset off named under prefix;
// false when they would be more than maxFields.
func appendFields(fs *[]Field, t reflect.Type, prefix string, off int) bool {
	if len(*fs) >= maxFields {
		return false
	}
	switch t.Kind() {
	case reflect.Bool:
		*fs = append(*fs, Field{Name: prefix, Off: off, Kind: 'b', Size: 1, Count: 1})
	case reflect.Array:
		e := t.Elem()
		if t.Len() == 0 {
			return true
		}
		if isScalar(e.Kind()) {
			f := scalarField(e, prefix, off)
			f.Count = t.Len()
			*fs = append(*fs, f)
			return true
		}
		es := int(e.Size())
		for i := range t.Len() {
			if !appendFields(fs, e, fmt.Sprintf("%s[%d]", prefix, i), off+i*es) {
				return false
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			name := sf.Name
			if prefix != "" {
				name = prefix + "." + sf.Name
			}
			if !appendFields(fs, sf.Type, name, off+int(sf.Offset)) {
				return false
			}
		}
	default:
		*fs = append(*fs, scalarField(t, prefix, off))
	}
	return len(*fs) <= maxFields
}

func isScalar(k reflect.Kind) bool {
	return k != reflect.Array && k != reflect.Struct
}

func scalarField(t reflect.Type, name string, off int) Field {
	k := byte('b')
	if t.Kind() != reflect.Bool {
		k = kindLetter(t.Kind())
	}
	return Field{Name: name, Off: off, Kind: k, Size: int(t.Size()), Count: 1}
}

// check verifies that sh is self-consistent: every part and field lies
// within its bounds, so that diffing and dumping by it cannot go out of
// range.
func (sh *Shape) check() error {
	if sh.MetaSize < 8 || sh.MetaSize > MaxWorldBytes || len(sh.Parts) > 1<<16 {
		return fmt.Errorf("%w: shape: meta size %d, %d parts", ErrCorrupt, sh.MetaSize, len(sh.Parts))
	}
	for i := range sh.Parts {
		p := &sh.Parts[i]
		if p.Elem <= 0 || p.Count <= 0 || p.Elem > MaxWorldBytes || p.Count > MaxWorldBytes ||
			int64(p.Elem)*int64(p.Count) > MaxWorldBytes || len(p.Fields) > maxFields+1 {
			return fmt.Errorf("%w: shape: part %q of %d×%d bytes", ErrCorrupt, p.Name, p.Count, p.Elem)
		}
		switch p.Kind {
		case "value":
			if p.Count != 1 || p.Off < 8 || p.Off+p.Elem > sh.MetaSize {
				return fmt.Errorf("%w: shape: value %q outside the meta region", ErrCorrupt, p.Name)
			}
		case "table":
			if p.LenPart != 0 {
				if p.LenPart < 0 || p.LenPart > i || sh.Parts[p.LenPart-1].Kind != "grid" || sh.Parts[p.LenPart-1].Count != 1 ||
					p.LenOff < 0 || p.LenOff+4 > sh.Parts[p.LenPart-1].Elem {
					return fmt.Errorf("%w: shape: table %q length outside its scene's meta region", ErrCorrupt, p.Name)
				}
				break
			}
			if p.LenOff < 8 || p.LenOff+4 > sh.MetaSize {
				return fmt.Errorf("%w: shape: table %q length outside the meta region", ErrCorrupt, p.Name)
			}
		case "grid":
			if p.Width <= 0 || p.Count%p.Width != 0 {
				return fmt.Errorf("%w: shape: grid %q of width %d", ErrCorrupt, p.Name, p.Width)
			}
		default:
			return fmt.Errorf("%w: shape: part %q of kind %q", ErrCorrupt, p.Name, p.Kind)
		}
		for _, f := range p.Fields {
			if f.Size <= 0 || f.Count <= 0 || f.Off < 0 || f.Size > p.Elem || f.Count > p.Elem ||
				f.Off+f.Size*f.Count > p.Elem || !validKind(f.Kind, f.Size) {
				return fmt.Errorf("%w: shape: field %q of %q", ErrCorrupt, f.Name, p.Name)
			}
		}
	}
	return nil
}

func validKind(k byte, size int) bool {
	switch k {
	case 'i', 'u':
		return size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		return size == 4 || size == 8
	case 'c':
		return size == 8 || size == 16
	case 'b':
		return size == 1
	case 'x':
		return true
	}
	return false
}
