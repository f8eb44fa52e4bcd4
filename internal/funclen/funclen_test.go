package funclen

import (
	"os"
	"path/filepath"
	"testing"
)

// engine is the engine packages the rule covers (with their
// subpackages): everything a game links, the relay, and the root package
// (its directory only: cmd, examples and internal are not engine code,
// but for internal/matchhost, the core of the root's Host).
var engine = []string{"world", "codec", "game", "server", "client", "transport", "relay", "gateway", "replay", "host", "internal/matchhost"}

// TestEngineFunctionsShort fails, listing them, when a non-test function
// of an engine package is over MaxLines lines.
func TestEngineFunctionsShort(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found: %v", err)
	}
	var long []Func
	fs, err := Long(root, ".", false, MaxLines)
	if err != nil {
		t.Fatal(err)
	}
	long = append(long, fs...)
	for _, dir := range engine {
		fs, err := Long(root, dir, true, MaxLines)
		if err != nil {
			t.Fatal(err)
		}
		long = append(long, fs...)
	}
	for _, f := range long {
		t.Errorf("%v: over %d lines", f, MaxLines)
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
