package inputs

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Type is a Schema bound to the game's Go input type T. It converts
// between T and the packed form without reflection or allocation.
type Type[T any] struct {
	*Schema
}

// NewType reads the fields of T (a struct of fixed-size fields, see
// Schema) by reflection once and returns its Type, or an error wrapping
// ErrBadSchema that names the offending field. Nothing is registered
// anywhere: two calls return equal, independent Types.
func NewType[T any]() (*Type[T], error) {
	s, err := NewSchema(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	return &Type[T]{s}, nil
}

// Pack writes v into dst (at least Size() bytes) in packed form and returns
// dst[:Size()]. It does not sanitize.
func (t *Type[T]) Pack(dst []byte, v *T) []byte {
	dst = dst[:t.size]
	base := unsafe.Pointer(v)
	for i := range t.fields {
		f := &t.fields[i]
		p := unsafe.Add(base, f.goOff)
		var x uint64
		switch f.width {
		case 1:
			x = uint64(*(*uint8)(p))
		case 2:
			x = uint64(*(*uint16)(p))
		case 4:
			x = uint64(*(*uint32)(p))
		default:
			x = *(*uint64)(p)
		}
		if f.kind == kindBool && x > 1 {
			x = 1
		}
		f.store(dst, x)
	}
	return dst
}

// Unpack reads the packed input src (Size() bytes) into v.
func (t *Type[T]) Unpack(src []byte, v *T) {
	if len(src) < t.size {
		panic(fmt.Sprintf("inputs: Unpack of %d bytes, want %d", len(src), t.size))
	}
	base := unsafe.Pointer(v)
	for i := range t.fields {
		f := &t.fields[i]
		p := unsafe.Add(base, f.goOff)
		x := f.load(src)
		switch f.width {
		case 1:
			*(*uint8)(p) = uint8(x)
		case 2:
			*(*uint16)(p) = uint16(x)
		case 4:
			*(*uint32)(p) = uint32(x)
		default:
			*(*uint64)(p) = x
		}
	}
}

// SanitizeValue sanitizes v in place through its packed form (see
// Schema.Sanitize).
func (t *Type[T]) SanitizeValue(v *T) error {
	var buf [MaxSize]byte
	p := t.Pack(buf[:], v)
	if err := t.Sanitize(p); err != nil {
		return err
	}
	t.Unpack(p, v)
	return nil
}
