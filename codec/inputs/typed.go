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
	packed bool // T holds the packed form itself (PackedType)
}

// Declarer is implemented by a game whose Go input type T is not the
// struct its schema was read from but that struct's packed form (a byte
// array of at least Schema().Size() bytes): the games registry's erased
// games, and games whose input layout is known only at run time. TypeOf
// makes such a game's Type with PackedType, so the wire, the fingerprint
// and the sanitizing are those of the declared schema.
type Declarer interface {
	// InputSchema returns the schema of the game's inputs.
	InputSchema() *Schema
}

// TypeOf returns the Type of g's inputs: PackedType of g's InputSchema
// when g is a Declarer, or wraps one (through a chain of
// `Unwrap() any` methods, game.Wrapper's), else NewType[T]. The engine
// (server, client, replay, gateway) makes its input Type with it.
func TypeOf[T any](g any) (*Type[T], error) {
	for range 16 { // a chain of wrappers is short: stop on a cycle
		if d, ok := g.(Declarer); ok {
			return PackedType[T](d.InputSchema())
		}
		w, ok := g.(interface{ Unwrap() any })
		if !ok {
			break
		}
		g = w.Unwrap()
	}
	return NewType[T]()
}

// PackedType returns a Type of T for inputs of schema s whose Go form is
// their packed form: T must be an array of bytes (or a struct of one
// such array) at least s.Size() bytes long; Pack and Unpack copy
// s.Size() bytes. It fails with ErrBadSchema otherwise.
func PackedType[T any](s *Schema) (*Type[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Struct && t.NumField() == 1 {
		t = t.Field(0).Type
	}
	if s == nil {
		return nil, fmt.Errorf("%w: no schema for %v", ErrBadSchema, reflect.TypeFor[T]())
	}
	if t.Kind() != reflect.Array || t.Elem().Kind() != reflect.Uint8 || t.Len() < s.size {
		return nil, fmt.Errorf("%w: %v cannot hold the packed inputs of %v", ErrBadSchema, reflect.TypeFor[T](), s.Type())
	}
	return &Type[T]{Schema: s, packed: true}, nil
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
	return &Type[T]{Schema: s}, nil
}

// Pack writes v into dst (at least Size() bytes) in packed form and returns
// dst[:Size()]. It does not sanitize.
func (t *Type[T]) Pack(dst []byte, v *T) []byte {
	dst = dst[:t.size]
	base := unsafe.Pointer(v)
	if t.packed {
		copy(dst, unsafe.Slice((*byte)(base), t.size))
		return dst
	}
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
	if t.packed {
		copy(unsafe.Slice((*byte)(base), t.size), src)
		return
	}
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
