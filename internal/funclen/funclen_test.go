package funclen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// covered is the top directories the walk must reach (a function in
// each): the rule is for all code, not the engine alone.
var covered = []string{"codec", "server", "transport", "relay", "rooms", "host", "cmd", "internal", "examples", "games", "view"}

// TestAllFunctionsShort fails, listing them, when a non-test function of
// any package of the module is over MaxLines lines: the root and every
// directory under it (internal, cmd, examples and games included, and
// the nested view module, which Long walks into as any directory),
// testdata and hidden directories aside. It also fails if the walk missed
// a directory of covered.
func TestAllFunctionsShort(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "view", "go.mod")); err != nil {
		t.Fatalf("the view module not found: %v", err)
	}
	all, err := Long(root, ".", true, 0) // every function, to see what was walked
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range all {
		seen[strings.SplitN(f.File, "/", 2)[0]] = true
		if f.Lines > MaxLines {
			t.Errorf("%v: over %d lines", f, MaxLines)
		}
	}
	for _, dir := range covered {
		if !seen[dir] {
			t.Errorf("no function found under %s/: the walk missed it", dir)
		}
	}
}

// TestLongFindsLongFunctions checks the checker on a file of its own.
func TestLongFindsLongFunctions(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc short() {}\n\ntype T[X any] struct{}\n\nfunc (t *T[X]) long() {\n"
	for range 10 {
		src += "\t_ = 1\n"
	}
	src += "}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := Long(dir, ".", true, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Name != "T.long" || fs[0].Lines != 12 || fs[0].Line != 7 || fs[0].File != "p.go" {
		t.Fatalf("Long = %v, want p.go:7 T.long (12 lines) alone", fs)
	}
	if fs, _ := Long(dir, ".", true, 12); len(fs) != 0 {
		t.Fatalf("Long with max 12 = %v, want none", fs)
	}
}
