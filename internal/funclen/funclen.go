// Package funclen finds long functions: the checker behind the rule that
// no non-test function of the module (and of the nested view module) runs
// over MaxLines lines (funclen_test.go applies it to the repository). It
// reads source with go/parser only, so it needs no build and no type
// information.
package funclen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// MaxLines is the longest a function may be, from its func line to its
// closing brace, both included.
const MaxLines = 80

// Func is one function or method and its length.
type Func struct {
	// Name is the function's name, "Type.Method" for a method.
	Name string
	// File is the file's path, slash-separated, relative to the walked root.
	File string
	// Line is the line of the func keyword.
	Line int
	// Lines is the length from the func line to the closing brace.
	Lines int
}

// String formats f as "file:line Name (n lines)".
func (f Func) String() string {
	return fmt.Sprintf("%s:%d %s (%d lines)", f.File, f.Line, f.Name, f.Lines)
}

// Long returns the non-test functions over max lines in the Go files of
// dir under root and, when recursive, of its subdirectories, skipping
// testdata and hidden directories. The result
// is sorted longest first.
func Long(root, dir string, recursive bool, max int) ([]Func, error) {
	fset := token.NewFileSet()
	var out []Func
	start := filepath.Join(root, dir)
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p == start {
				return nil
			}
			if !recursive || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			first, last := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := last - first + 1; n > max {
				out = append(out, Func{Name: funcName(fd), File: rel, Line: first, Lines: n})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		return out[i].File+out[i].Name < out[j].File+out[j].Name
	})
	return out, err
}

// funcName returns "Name" or "Recv.Name" (without type parameters).
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
