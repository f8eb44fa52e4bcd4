package rewind

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The package table of docs/architecture.md, under test: every package
// of the module and of the view module is named by exactly one row, and
// a row's imports column says exactly which packages of ours its
// packages import (non-test files, native and js/wasm builds), the
// row's own packages left out.
//
// A row's first column names its packages in backquotes, relative to
// the module's root (`rewind` is the root; `X/*` is every package under
// X, X itself not included). The imports column lists packages the same
// way, comma-separated, without backquotes; text in parentheses is a
// note the test skips; "—" is none. An X/* there stands for the
// packages under X that the row imports, and must stand for one at
// least.

// archDoc is the page whose table is checked.
const archDoc = "docs/architecture.md"

// archModule is the module's path; the view module's is below it.
const archModule = "github.com/rewindnet/rewind"

// archRow is one row of the table.
type archRow struct {
	line     int      // line number in archDoc
	pkgs     []string // first column's patterns
	imports  []string // imports column's patterns
	wantNone bool     // the imports column is "—"
}

// archHeader starts the table.
const archHeader = "| package | what it is | imports |"

var (
	archTick  = regexp.MustCompile("`([^`]+)`")
	archParen = regexp.MustCompile(`\([^)]*\)`)
)

// parseArchTable reads the table that follows archHeader in doc.
func parseArchTable(doc string) ([]archRow, error) {
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, archHeader)
	if start < 0 || start+1 >= len(lines) {
		return nil, errors.New("no line " + archHeader)
	}
	var rows []archRow
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cols := strings.Split(lines[i], "|")
		if len(cols) != 5 {
			return nil, errors.New("line " + strconv.Itoa(i+1) + ": want 3 columns: " + lines[i])
		}
		r := archRow{line: i + 1}
		for _, m := range archTick.FindAllStringSubmatch(cols[1], -1) {
			r.pkgs = append(r.pkgs, m[1])
		}
		if len(r.pkgs) == 0 {
			return nil, errors.New("line " + strconv.Itoa(i+1) + ": no `package` in the first column")
		}
		imp := strings.TrimSpace(archParen.ReplaceAllString(cols[3], ""))
		if imp == "—" {
			r.wantNone = true
		} else {
			for _, f := range strings.Split(imp, ",") {
				if f = strings.TrimSpace(f); f != "" {
					r.imports = append(r.imports, f)
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// archMatch reports whether the package rel (relative to the module's
// root, "rewind" for the root) matches the pattern p.
func archMatch(p, rel string) bool {
	if dir, ok := strings.CutSuffix(p, "/*"); ok {
		return strings.HasPrefix(rel, dir+"/")
	}
	return p == rel
}

// archRel returns an import path of ours relative to the module's root
// ("rewind" for the root), or false for another module's.
func archRel(imp string) (string, bool) {
	if imp == archModule {
		return "rewind", true
	}
	rel, ok := strings.CutPrefix(imp, archModule+"/")
	return rel, ok
}

// archGraph maps each package of ours (relative) to the packages of ours
// its non-test files import.
type archGraph map[string][]string

// add records pkgs' imports of our packages.
func (g archGraph) add(pkgs []listedPackage) {
	for _, p := range pkgs {
		rel, ok := archRel(p.ImportPath)
		if !ok {
			continue
		}
		if _, seen := g[rel]; !seen {
			g[rel] = nil
		}
		for _, imp := range p.Imports {
			if r, ok := archRel(imp); ok && !slices.Contains(g[rel], r) {
				g[rel] = append(g[rel], r)
			}
		}
	}
}

// archProblems compares rows with g and returns what differs, one line
// each.
func archProblems(rows []archRow, g archGraph) []string {
	var bad []string
	owner := map[string]int{}
	for i, r := range rows {
		for _, p := range r.pkgs {
			found := false
			for rel := range g {
				if !archMatch(p, rel) {
					continue
				}
				found = true
				if j, dup := owner[rel]; dup && j != i {
					bad = append(bad, "line "+strconv.Itoa(r.line)+": "+rel+" is also in line "+strconv.Itoa(rows[j].line))
				}
				owner[rel] = i
			}
			if !found {
				bad = append(bad, "line "+strconv.Itoa(r.line)+": no package "+p)
			}
		}
	}
	var uncovered []string
	for rel := range g {
		if _, ok := owner[rel]; !ok {
			uncovered = append(uncovered, rel)
		}
	}
	slices.Sort(uncovered)
	for _, rel := range uncovered {
		bad = append(bad, "no row names the package "+rel)
	}
	for i, r := range rows {
		bad = append(bad, r.importProblems(i, g, owner)...)
	}
	return bad
}

// importProblems compares row i's imports column with what its
// packages import.
func (r archRow) importProblems(i int, g archGraph, owner map[string]int) []string {
	var got []string
	for rel, imps := range g {
		if j, ok := owner[rel]; !ok || j != i {
			continue
		}
		for _, imp := range imps {
			if j, ok := owner[imp]; (!ok || j != i) && !slices.Contains(got, imp) {
				got = append(got, imp)
			}
		}
	}
	slices.Sort(got)
	var bad []string
	if r.wantNone != (len(got) == 0) && (r.wantNone || len(r.imports) == 0) {
		bad = append(bad, "line "+strconv.Itoa(r.line)+": imports are "+archList(got))
	}
	for _, imp := range got {
		if !slices.ContainsFunc(r.imports, func(p string) bool { return archMatch(p, imp) }) && !r.wantNone {
			bad = append(bad, "line "+strconv.Itoa(r.line)+": "+imp+" imported, not in the imports column")
		}
	}
	for _, p := range r.imports {
		if !slices.ContainsFunc(got, func(imp string) bool { return archMatch(p, imp) }) {
			bad = append(bad, "line "+strconv.Itoa(r.line)+": "+p+" in the imports column, not imported")
		}
	}
	return bad
}

// archList writes imports as the column would.
func archList(imps []string) string {
	if len(imps) == 0 {
		return "—"
	}
	return strings.Join(imps, ", ")
}

// archGraphOfTree reads the imports of every non-test Go file of the
// module and of the view module, whatever its build constraints (the
// union of every platform's build; a file marked ignore left out): a
// directory with such a file is a package. It parses import clauses
// only, in milliseconds, where go list for both modules and both
// platforms takes seconds on a loaded machine.
func archGraphOfTree(t *testing.T) archGraph {
	t.Helper()
	g := archGraph{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if archIgnored(f) {
			return nil
		}
		pkg := archModule
		if dir := filepath.ToSlash(filepath.Dir(p)); dir != "." {
			pkg += "/" + dir
		}
		lp := listedPackage{ImportPath: pkg}
		for _, s := range f.Imports {
			v, _ := strconv.Unquote(s.Path.Value)
			lp.Imports = append(lp.Imports, v)
		}
		g.add([]listedPackage{lp})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// archIgnored reports whether f's build constraint is "ignore".
func archIgnored(f *ast.File) bool {
	for _, c := range f.Comments {
		if c.Pos() > f.Package {
			break
		}
		for _, l := range c.List {
			if strings.TrimSpace(l.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

// TestArchitectureTable: docs/architecture.md's package table is the
// tree's: one row for every package, and each row's imports are its
// packages' imports (see the comment at the top of this file).
func TestArchitectureTable(t *testing.T) {
	doc, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseArchTable(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range archProblems(rows, archGraphOfTree(t)) {
		t.Errorf("%s: %s", archDoc, b)
	}
}

// TestArchitectureTableCatches: the check fails on a deleted row, a
// missing import, an import too many and a package that is not there.
func TestArchitectureTableCatches(t *testing.T) {
	g := archGraph{"rewind": {"server"}, "server": {"world"}, "world": nil, "games/sand": {"rewind", "world"}, "games/cards": {"rewind"}}
	table := archHeader + "\n|---|---|---|\n" +
		"| `rewind` (root) | the face | server |\n" +
		"| `server` | the match | world |\n" +
		"| `world` | state | — |\n" +
		"| `games/*` | games | rewind, world (sand) |\n"
	rows, err := parseArchTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if bad := archProblems(rows, g); len(bad) != 0 {
		t.Fatalf("a true table: %q", bad)
	}
	for _, c := range []struct{ from, to, want string }{
		{"| `world` | state | — |\n", "", "no row names the package world"},
		{"| server |", "| — |", "line 3: imports are server"},
		{"| server |", "| server, world |", "line 3: world in the imports column, not imported"},
		{"| world |", "| game |", "line 4: world imported, not in the imports column"},
		{"`games/*`", "`games/*`, `gone`", "line 6: no package gone"},
	} {
		rows, err := parseArchTable(strings.Replace(table, c.from, c.to, 1))
		if err != nil {
			t.Fatal(err)
		}
		if bad := archProblems(rows, g); !slices.Contains(bad, c.want) {
			t.Errorf("%q -> %q: problems %q, want %q among them", c.from, c.to, bad, c.want)
		}
	}
	// A deleted row is that one problem, its imports counted in no other row.
	rows, err = parseArchTable(strings.Replace(table, "| `server` | the match | world |\n", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	if bad := archProblems(rows, g); !slices.Equal(bad, []string{"no row names the package server"}) {
		t.Errorf("server's row deleted: problems %q, want only that no row names it", bad)
	}
	if archMatch("games/*", "games") || !archMatch("games/*", path.Join("games", "sand")) {
		t.Error("games/* must match games/sand, not games")
	}
}
