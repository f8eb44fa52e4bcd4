package inputs

import "math"

// FieldKind is the kind of an input field as FieldInfo reports it.
type FieldKind uint8

// Field kinds.
const (
	// FieldBool is a bool (one byte, 0 or 1).
	FieldBool FieldKind = iota + 1
	// FieldInt is a signed integer of Width bytes.
	FieldInt
	// FieldUint is an unsigned integer of Width bytes.
	FieldUint
	// FieldFloat is a float32 (Width 4) or float64 (Width 8).
	FieldFloat
)

// FieldInfo describes one field of a Schema, for code that converts inputs
// to and from another representation (package gateway's JSON): its name,
// kind, width and offset in the packed form, and the values Sanitize
// leaves unchanged. Unbounded integer fields report their type's limits,
// unbounded floats ±Inf.
type FieldInfo struct {
	Name   string
	Kind   FieldKind
	Width  int // bytes, in the packed form and in the Go struct
	Offset int // byte offset in the packed form
	// Enum says a value outside [Min, Max] is refused rather than clamped.
	Enum bool
	// Bounded says the field has bounds in its tag.
	Bounded bool
	// IntMin and IntMax bound a FieldInt, UintMin and UintMax a
	// FieldUint, FloatMin and FloatMax a FieldFloat.
	IntMin, IntMax     int64
	UintMin, UintMax   uint64
	FloatMin, FloatMax float64
}

// Field returns the description of field i (0 ≤ i < NumFields()).
func (s *Schema) Field(i int) FieldInfo {
	f := &s.fields[i]
	fi := FieldInfo{Name: f.name, Width: int(f.width), Offset: int(f.off), Enum: f.enum, Bounded: f.bounded,
		IntMin: f.imin, IntMax: f.imax, UintMin: f.umin, UintMax: f.umax, FloatMin: f.fmin, FloatMax: f.fmax}
	switch f.kind {
	case kindBool:
		fi.Kind = FieldBool
	case kindInt:
		fi.Kind = FieldInt
		if !f.bounded {
			fi.IntMin, fi.IntMax = int64(math.MinInt64)>>(64-f.bits), int64(math.MaxInt64)>>(64-f.bits)
		}
	case kindUint:
		fi.Kind = FieldUint
		if !f.bounded {
			fi.UintMin, fi.UintMax = 0, math.MaxUint64>>(64-f.bits)
		}
	default:
		fi.Kind = FieldFloat
		if !f.bounded {
			fi.FloatMin, fi.FloatMax = math.Inf(-1), math.Inf(1)
		}
	}
	return fi
}
