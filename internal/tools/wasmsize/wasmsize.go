// Command wasmsize prints how many bytes of a Go js/wasm program's code
// each package holds: the function bodies of the wasm code section,
// named by the name section (so build without -ldflags=-s), summed by
// package, largest first, after a line with the file's, the code's and
// the data's bytes. docs/benchmarks.md measures the page's Worker with it:
//
//	cd view && GOOS=js GOARCH=wasm go build -trimpath -o /tmp/w.wasm ./page/worker
//	go run ./internal/tools/wasmsize /tmp/w.wasm
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// module is what wasmsize reads of a wasm file.
type module struct {
	imports int            // imported functions: they come first in the function index space
	bodies  []int          // the code section's function bodies' sizes
	names   map[int]string // function index → name (the name section)
	data    int            // the data section's bytes
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize FILE.wasm")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m, err := parse(b)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
	per := map[string]int{}
	code := 0
	for i, n := range m.bodies {
		code += n
		per[pkgOf(m.names[m.imports+i])] += n
	}
	pkgs := make([]string, 0, len(per))
	for p := range per {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return per[pkgs[i]] > per[pkgs[j]] })
	fmt.Printf("file %d code %d data %d functions %d\n", len(b), code, m.data, len(m.bodies))
	for _, p := range pkgs {
		fmt.Printf("%9d %s\n", per[p], p)
	}
}

// pkgOf returns the package of a function's name as Go's wasm linker
// writes it (every character of the package path but letters, digits,
// '.' and '_' made '_': github.com_klauspost_compress_zstd.(*Encoder)...
// becomes github.com_klauspost_compress_zstd).
func pkgOf(name string) string {
	if strings.HasPrefix(name, "type_.") || name == "" {
		return "type_ (the compiler's equality and hash functions)"
	}
	dot := strings.Index(name, ".")
	if dot < 0 {
		return name
	}
	if strings.HasPrefix(name, "github.com_") || strings.HasPrefix(name, "golang.org_") {
		if d := strings.Index(name[dot+1:], "."); d >= 0 {
			dot += 1 + d
		}
	}
	return name[:dot]
}

// reader reads a wasm file's LEB128 numbers and bytes.
type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) uint() int {
	v, n := binary.Uvarint(r.b[min(r.i, len(r.b)):])
	if n <= 0 {
		r.err, r.i = errors.New("bad number"), len(r.b)
		return 0
	}
	r.i += n
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || r.i+n > len(r.b) {
		r.err, r.i = errors.New("truncated"), len(r.b)
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

// parse reads the sections wasmsize needs: imports, code, data, names.
func parse(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm file")
	}
	m := &module{names: map[int]string{}}
	r := &reader{b: b, i: 8}
	for r.i < len(b) && r.err == nil {
		id := r.bytes(1)
		sec := &reader{b: r.bytes(r.uint())}
		if r.err != nil {
			break
		}
		switch id[0] {
		case 2:
			m.imports = countFuncImports(sec)
		case 10:
			for n := sec.uint(); n > 0 && sec.err == nil; n-- {
				m.bodies = append(m.bodies, len(sec.bytes(sec.uint())))
			}
		case 11:
			m.data = len(sec.b)
		case 0:
			if string(sec.bytes(sec.uint())) == "name" {
				readNames(sec, m.names)
			}
		}
		if sec.err != nil {
			return nil, sec.err
		}
	}
	return m, r.err
}

// countFuncImports counts the import section's functions.
func countFuncImports(r *reader) int {
	funcs := 0
	for n := r.uint(); n > 0 && r.err == nil; n-- {
		r.bytes(r.uint()) // module
		r.bytes(r.uint()) // name
		switch r.bytes(1)[0] {
		case 0: // function: its type index
			r.uint()
			funcs++
		case 1: // table: element type, limits
			r.bytes(1)
			readLimits(r)
		case 2: // memory: limits
			readLimits(r)
		case 3: // global: value type, mutability
			r.bytes(2)
		}
	}
	return funcs
}

func readLimits(r *reader) {
	if r.bytes(1)[0]&1 == 1 {
		r.uint()
	}
	r.uint()
}

// readNames reads the name section's function names into names.
func readNames(r *reader, names map[int]string) {
	for r.i < len(r.b) && r.err == nil {
		kind := r.bytes(1)
		sub := &reader{b: r.bytes(r.uint())}
		if r.err != nil || kind[0] != 1 {
			continue
		}
		for n := sub.uint(); n > 0 && sub.err == nil; n-- {
			idx := sub.uint()
			names[idx] = string(sub.bytes(sub.uint()))
		}
	}
}
