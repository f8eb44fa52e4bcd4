package world

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Grid is a handle to a fixed width × height grid of cells of type T,
// stored row-major (cell (x, y) at index y*width + x). Every cell is always
// in use. Methods do not allocate; coordinates out of range panic.
type Grid[T any] struct{ s *slot }

// AddGrid registers a grid named name of width × height cells of type T,
// in the public scene or in the scene given (see Scene).
func AddGrid[T any](s *Schema, name string, width, height int, in ...Scene) Grid[T] {
	if width <= 0 || height <= 0 || width > MaxWorldBytes || height > MaxWorldBytes || int64(width)*int64(height) > MaxWorldBytes {
		s.fail(fmt.Errorf("%w: grid %q: size %dx%d", ErrSchema, name, width, height))
		return Grid[T]{&slot{name: name}}
	}
	return Grid[T]{s.add(name, kindGrid, reflect.TypeFor[T](), width*height, width, height, in)}
}

// Width returns the number of columns.
func (g Grid[T]) Width() int { return g.s.width }

// Height returns the number of rows.
func (g Grid[T]) Height() int { return g.s.height }

// Name returns the name the grid was registered under.
func (g Grid[T]) Name() string { return g.s.name }

// Cells returns all cells, row-major, as a slice aliasing the world.
func (g Grid[T]) Cells(w *World) []T {
	w.check(g.s.lh)
	return unsafe.Slice((*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.mem)), g.s.off)), g.s.count)
}

// Row returns row y as a slice aliasing the world.
func (g Grid[T]) Row(w *World, y int) []T {
	if uint(y) >= uint(g.s.height) {
		panic(fmt.Sprintf("world: grid %q: row %d out of range [0:%d]", g.s.name, y, g.s.height))
	}
	return g.Cells(w)[y*g.s.width : (y+1)*g.s.width]
}

// At returns a pointer to cell (x, y).
func (g Grid[T]) At(w *World, x, y int) *T {
	w.check(g.s.lh)
	if uint(x) >= uint(g.s.width) || uint(y) >= uint(g.s.height) {
		panic(fmt.Sprintf("world: grid %q: cell (%d,%d) out of range %dx%d", g.s.name, x, y, g.s.width, g.s.height))
	}
	return (*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.mem)), g.s.off+(y*g.s.width+x)*g.s.info.size))
}

// Get returns cell (x, y).
func (g Grid[T]) Get(w *World, x, y int) T { return *g.At(w, x, y) }

// Set sets cell (x, y).
func (g Grid[T]) Set(w *World, x, y int, v T) { *g.At(w, x, y) = v }

// In reports whether (x, y) lies inside the grid.
func (g Grid[T]) In(x, y int) bool {
	return uint(x) < uint(g.s.width) && uint(y) < uint(g.s.height)
}
