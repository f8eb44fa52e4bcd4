package world

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Table is a handle to a growable table of plain records of type T with a
// fixed capacity. Records in use are indexes 0..Len-1; Remove swaps the last
// record into the hole (see docs/world.md: it keeps the bytes in use
// contiguous, so snapshots and hashes cost what is in use). A record's
// index therefore changes when another is removed: keep a stable id inside
// the record if something must refer to it.
//
// Methods take the world to act on; they do not allocate. An index out of
// range panics, as with slices.
type Table[T any] struct{ s *slot }

// AddTable registers a table named name holding up to capacity records of
// type T, in the public scene or in the scene given (see Scene). T must be
// plain data (see package doc); otherwise the schema records an error
// naming the type and field.
func AddTable[T any](s *Schema, name string, capacity int, in ...Scene) Table[T] {
	return Table[T]{s.add(name, kindTable, reflect.TypeFor[T](), capacity, 0, 0, in)}
}

// Len returns the number of records in use.
func (t Table[T]) Len(w *World) int {
	w.check(t.s.lh)
	return w.tableLen(t.s.lenOff)
}

// Cap returns the table's capacity.
func (t Table[T]) Cap() int { return t.s.count }

// Name returns the name the table was registered under.
func (t Table[T]) Name() string { return t.s.name }

func (t Table[T]) ptr(w *World, i int) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.mem)), t.s.off+i*t.s.info.size))
}

// At returns a pointer to record i, valid until the world is restored,
// decoded into, or the record is removed.
func (t Table[T]) At(w *World, i int) *T {
	n := t.Len(w)
	if uint(i) >= uint(n) {
		panic(fmt.Sprintf("world: table %q: index %d out of range [0:%d]", t.s.name, i, n))
	}
	return t.ptr(w, i)
}

// Get returns a copy of record i.
func (t Table[T]) Get(w *World, i int) T { return *t.At(w, i) }

// Set overwrites record i.
func (t Table[T]) Set(w *World, i int, v T) { *t.At(w, i) = v }

// All returns the records in use as a slice aliasing the world (valid
// until the table's length changes or the world is restored).
func (t Table[T]) All(w *World) []T {
	n := t.Len(w)
	return unsafe.Slice(t.ptr(w, 0), t.s.count)[:n:n]
}

// Add appends v and returns its index, or ErrFull.
func (t Table[T]) Add(w *World, v T) (int, error) {
	n := t.Len(w)
	if n >= t.s.count {
		return -1, fmt.Errorf("world: table %q (capacity %d): %w", t.s.name, t.s.count, ErrFull)
	}
	*t.ptr(w, n) = v
	w.setTableLen(t.s.lenOff, n+1)
	return n, nil
}

// Remove removes record i by moving the last record into its place and
// zeroing the last slot.
func (t Table[T]) Remove(w *World, i int) {
	n := t.Len(w)
	if uint(i) >= uint(n) {
		panic(fmt.Sprintf("world: table %q: remove index %d out of range [0:%d]", t.s.name, i, n))
	}
	if i != n-1 {
		*t.ptr(w, i) = *t.ptr(w, n-1)
	}
	sz := t.s.info.size
	off := t.s.off + (n-1)*sz
	clear(w.mem[off : off+sz])
	w.setTableLen(t.s.lenOff, n-1)
}

// Truncate shrinks the table to n records (n ≤ Len), zeroing the rest.
func (t Table[T]) Truncate(w *World, n int) {
	l := t.Len(w)
	if n < 0 || n > l {
		panic(fmt.Sprintf("world: table %q: truncate to %d out of range [0:%d]", t.s.name, n, l))
	}
	sz := t.s.info.size
	clear(w.mem[t.s.off+n*sz : t.s.off+l*sz])
	w.setTableLen(t.s.lenOff, n)
}

// Clear empties the table.
func (t Table[T]) Clear(w *World) { t.Truncate(w, 0) }
