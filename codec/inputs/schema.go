package inputs

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/zeebo/xxh3"
)

// MaxFields is the largest number of fields an input struct may have.
const MaxFields = 32

// MaxSize is the largest packed input, in bytes.
const MaxSize = 128

// kind is the coding class of an input field.
type kind uint8

const (
	kindBool kind = iota + 1
	kindInt
	kindUint
	kindFloat32
	kindFloat64
)

// field describes one input field, computed once by NewSchema.
type field struct {
	name    string
	kind    kind
	width   uint8   // bytes in the packed form (and in the Go struct)
	bits    uint8   // width*8
	goOff   uintptr // offset in the Go struct
	off     uint16  // offset in the packed form
	enum    bool    // out-of-range values are refused instead of clamped
	private bool    // never relayed to other players (private.go)
	bounded bool
	imin    int64 // bounds for kindInt (and enum)
	imax    int64
	umin    uint64 // bounds for kindUint
	umax    uint64
	fmin    float64 // bounds for floats
	fmax    float64
}

// Schema is an input type read by NewSchema or NewType: its fields, their bounds and the
// packed form in which the codec and the server handle inputs without
// knowing the Go type. The packed form of an input is Size() bytes: every
// field in declaration order, little-endian, at its own width (a bool is one
// byte, 0 or 1; padding is left out). A Schema is immutable and safe for
// concurrent use.
//
// Fields may be int8..int64, uint8..uint64 (including named types such as
// enums), bool, float32 and float64. int, uint and uintptr are refused:
// their width follows the platform (4 bytes in wasm, 8 natively), so a
// browser and a desktop player would pack different bytes. Bounds come from a struct tag:
//
//	Move   int8    `rewind:"min=-50,max=50"`  // clamped into [-50, 50]
//	Weapon Weapon  `rewind:"enum,min=0,max=7"` // outside [0, 7]: refused
//	Aim    float32 `rewind:"min=-3.5,max=3.5"` // NaN, ±Inf become 0, then clamped
//
// NaN and ±Inf always become 0 in float fields, bounded or not.
type Schema struct {
	typ    reflect.Type
	fields []field
	size   int
	goSize uintptr
	fp     uint64
	priv   [][2]uint16 // packed byte ranges of the private fields
}

// NewSchema reads the fields of the struct type t and returns its
// Schema. It fails with ErrBadSchema,
// naming the field, for a field of another kind (int, uint and uintptr
// included: their width follows the platform), a malformed tag, or more
// than MaxFields fields.
func NewSchema(t reflect.Type) (*Schema, error) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%w: %v is not a struct", ErrBadSchema, t)
	}
	if t.NumField() == 0 {
		return nil, fmt.Errorf("%w: %v has no fields", ErrBadSchema, t)
	}
	if t.NumField() > MaxFields {
		return nil, fmt.Errorf("%w: %v has %d fields, at most %d allowed", ErrBadSchema, t, t.NumField(), MaxFields)
	}
	s := &Schema{typ: t, goSize: t.Size()}
	var desc strings.Builder
	desc.WriteString("rewind-input-v1")
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		f := field{name: sf.Name, goOff: sf.Offset, off: uint16(s.size)}
		switch sf.Type.Kind() {
		case reflect.Bool:
			f.kind = kindBool
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.kind = kindInt
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.kind = kindUint
		case reflect.Int, reflect.Uint, reflect.Uintptr:
			return nil, fmt.Errorf("%w: field %s.%s is %v, whose width follows the platform (4 bytes in wasm, 8 natively): use %s32 or %s64",
				ErrBadSchema, t.Name(), sf.Name, sf.Type, platformBase(sf.Type.Kind()), platformBase(sf.Type.Kind()))
		case reflect.Float32:
			f.kind = kindFloat32
		case reflect.Float64:
			f.kind = kindFloat64
		default:
			return nil, fmt.Errorf("%w: field %s.%s has kind %v (want a fixed-size int, uint, bool or float)",
				ErrBadSchema, t.Name(), sf.Name, sf.Type.Kind())
		}
		f.width = uint8(sf.Type.Size())
		f.bits = f.width * 8
		if err := parseTag(&f, sf.Tag.Get("rewind")); err != nil {
			return nil, fmt.Errorf("%w: field %s.%s: %v", ErrBadSchema, t.Name(), sf.Name, err)
		}
		fmt.Fprintf(&desc, "|%s:%d:%d:%v:%v:%d:%d:%d:%d:%g:%g", f.name, f.kind, f.width, f.enum, f.bounded,
			f.imin, f.imax, f.umin, f.umax, f.fmin, f.fmax)
		if f.private {
			desc.WriteString(":private") // only then: public schemas keep their fingerprints
			s.priv = append(s.priv, [2]uint16{f.off, f.off + uint16(f.width)})
		}
		s.fields = append(s.fields, f)
		s.size += int(f.width)
	}
	if s.size > MaxSize {
		return nil, fmt.Errorf("%w: %v packs into %d bytes, at most %d allowed", ErrBadSchema, t, s.size, MaxSize)
	}
	s.fp = xxh3.HashString(desc.String())
	return s, nil
}

// platformBase names the fixed-size family to suggest for a field of
// platform-dependent width k: "int" for int, "uint" for uint and uintptr.
func platformBase(k reflect.Kind) string {
	if k == reflect.Int {
		return "int"
	}
	return "uint"
}

// parseTag reads `min=..,max=..,enum` into f.
func parseTag(f *field, tag string) error {
	if tag == "" {
		return nil
	}
	var hasMin, hasMax bool
	var minS, maxS string
	for _, part := range strings.Split(tag, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "enum":
			f.enum = true
		case part == "private":
			f.private = true
		case strings.HasPrefix(part, "min="):
			hasMin, minS = true, part[4:]
		case strings.HasPrefix(part, "max="):
			hasMax, maxS = true, part[4:]
		case part == "":
		default:
			return fmt.Errorf("unknown tag option %q", part)
		}
	}
	if f.enum && (f.kind != kindInt && f.kind != kindUint) {
		return fmt.Errorf("enum on a non-integer field")
	}
	if f.enum && !(hasMin && hasMax) {
		return fmt.Errorf("enum needs min and max")
	}
	if !hasMin && !hasMax {
		return nil // (private alone)
	}
	f.bounded = true
	switch f.kind {
	case kindBool:
		return fmt.Errorf("bounds on a bool field")
	case kindInt:
		return f.parseIntBounds(hasMin, hasMax, minS, maxS)
	case kindUint:
		return f.parseUintBounds(hasMin, hasMax, minS, maxS)
	}
	return f.parseFloatBounds(hasMin, hasMax, minS, maxS)
}

// parseIntBounds sets the bounds of a signed field from the tag's min and
// max (each the type's own limit when absent).
func (f *field) parseIntBounds(hasMin, hasMax bool, minS, maxS string) error {
	f.imin, f.imax = int64(math.MinInt64)>>(64-f.bits), int64(math.MaxInt64)>>(64-f.bits)
	var err error
	if hasMin {
		if f.imin, err = strconv.ParseInt(minS, 10, int(f.bits)); err != nil {
			return fmt.Errorf("min: %v", err)
		}
	}
	if hasMax {
		if f.imax, err = strconv.ParseInt(maxS, 10, int(f.bits)); err != nil {
			return fmt.Errorf("max: %v", err)
		}
	}
	if f.imin > f.imax {
		return fmt.Errorf("min %d > max %d", f.imin, f.imax)
	}
	return nil
}

// parseUintBounds sets the bounds of an unsigned field.
func (f *field) parseUintBounds(hasMin, hasMax bool, minS, maxS string) error {
	f.umin, f.umax = 0, math.MaxUint64>>(64-f.bits)
	var err error
	if hasMin {
		if f.umin, err = strconv.ParseUint(minS, 10, int(f.bits)); err != nil {
			return fmt.Errorf("min: %v", err)
		}
	}
	if hasMax {
		if f.umax, err = strconv.ParseUint(maxS, 10, int(f.bits)); err != nil {
			return fmt.Errorf("max: %v", err)
		}
	}
	if f.umin > f.umax {
		return fmt.Errorf("min %d > max %d", f.umin, f.umax)
	}
	return nil
}

// parseFloatBounds sets the bounds of a float field (NaN refused), as the
// values a float32 field can hold.
func (f *field) parseFloatBounds(hasMin, hasMax bool, minS, maxS string) error {
	f.fmin, f.fmax = math.Inf(-1), math.Inf(1)
	var err error
	if hasMin {
		if f.fmin, err = strconv.ParseFloat(minS, 64); err != nil || math.IsNaN(f.fmin) {
			return fmt.Errorf("min: bad float %q", minS)
		}
	}
	if hasMax {
		if f.fmax, err = strconv.ParseFloat(maxS, 64); err != nil || math.IsNaN(f.fmax) {
			return fmt.Errorf("max: bad float %q", maxS)
		}
	}
	if f.fmin > f.fmax {
		return fmt.Errorf("min %g > max %g", f.fmin, f.fmax)
	}
	if f.kind == kindFloat32 {
		// Bounds as the float32 values the field can hold.
		f.fmin, f.fmax = float64(float32(f.fmin)), float64(float32(f.fmax))
	}
	return nil
}

// Size returns the length of the packed form in bytes.
func (s *Schema) Size() int { return s.size }

// NumFields returns the number of fields.
func (s *Schema) NumFields() int { return len(s.fields) }

// FieldName returns the name of field i.
func (s *Schema) FieldName(i int) string { return s.fields[i].name }

// Type returns the Go struct type the Schema was read from.
func (s *Schema) Type() reflect.Type { return s.typ }

// Fingerprint returns a 64-bit hash of the schema (field names, kinds,
// widths and bounds), for the game compatibility fingerprint of Hello.
func (s *Schema) Fingerprint() uint64 { return s.fp }

// load reads field f of packed input p as raw bits (sign-extended for
// signed integers is not done: the raw little-endian bits).
func (f *field) load(p []byte) uint64 {
	o := int(f.off)
	switch f.width {
	case 1:
		return uint64(p[o])
	case 2:
		_ = p[o+1]
		return uint64(p[o]) | uint64(p[o+1])<<8
	case 4:
		_ = p[o+3]
		return uint64(p[o]) | uint64(p[o+1])<<8 | uint64(p[o+2])<<16 | uint64(p[o+3])<<24
	default:
		_ = p[o+7]
		return uint64(p[o]) | uint64(p[o+1])<<8 | uint64(p[o+2])<<16 | uint64(p[o+3])<<24 |
			uint64(p[o+4])<<32 | uint64(p[o+5])<<40 | uint64(p[o+6])<<48 | uint64(p[o+7])<<56
	}
}

// store writes the low width bytes of v into field f of packed input p.
func (f *field) store(p []byte, v uint64) {
	o := int(f.off)
	switch f.width {
	case 1:
		p[o] = byte(v)
	case 2:
		_ = p[o+1]
		p[o], p[o+1] = byte(v), byte(v>>8)
	case 4:
		_ = p[o+3]
		p[o], p[o+1], p[o+2], p[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	default:
		_ = p[o+7]
		p[o], p[o+1], p[o+2], p[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		p[o+4], p[o+5], p[o+6], p[o+7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	}
}

// signed returns raw bits of width w sign-extended to int64.
func signed(v uint64, bits uint8) int64 {
	sh := 64 - uint(bits)
	return int64(v<<sh) >> sh
}
