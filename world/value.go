package world

import (
	"reflect"
	"unsafe"
)

// Value is a handle to a single plain value of type T in the world (a
// score, a tick counter, a game phase). Methods do not allocate.
type Value[T any] struct{ s *slot }

// AddValue registers a single value named name of type T, initially zero,
// in the public scene or in the scene given (see Scene).
func AddValue[T any](s *Schema, name string, in ...Scene) Value[T] {
	return Value[T]{s.add(name, kindValue, reflect.TypeFor[T](), 1, 0, 0, in)}
}

// Ptr returns a pointer to the value inside w.
func (v Value[T]) Ptr(w *World) *T {
	w.check(v.s.lh)
	return (*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.mem)), v.s.off))
}

// Get returns the value.
func (v Value[T]) Get(w *World) T { return *v.Ptr(w) }

// Set sets the value.
func (v Value[T]) Set(w *World, x T) { *v.Ptr(w) = x }

// Name returns the name the value was registered under.
func (v Value[T]) Name() string { return v.s.name }
