package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// docsGame returns the C game of docs/modules.md ("A whole game in C"):
// the text of its first ```c block.
func docsGame(t *testing.T) string {
	b, err := os.ReadFile("../../docs/modules.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "## A whole game in C")
	if ok {
		_, rest, ok = strings.Cut(rest, "```c\n")
	}
	src, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/modules.md has no ```c block under \"A whole game in C\"")
	}
	return src
}

// TestDocsGame compiles docs/modules.md's C game with the command the
// docs give (clang, without the C example's pinned version: any clang
// with wasm-ld), checks it against contract v1 and plays 1,800 seeded
// ticks under wazero's compiler and interpreter: one memory hash, and
// every player's score bar drawn. It skips without clang, saying so,
// except under CI.
func TestDocsGame(t *testing.T) {
	src := docsGame(t)
	if n := strings.Count(src, "\n"); n > 45 {
		t.Errorf("the docs' C game is %d lines: the docs promise about forty", n)
	}
	clang, err := exec.LookPath("clang")
	if err != nil {
		if required() {
			t.Fatal("CI installs clang: not found")
		}
		t.Skip("clang not found: the docs' C game is not compiled")
	}
	dir := t.TempDir()
	c, wasm := filepath.Join(dir, "squares.c"), filepath.Join(dir, "squares.wasm")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(clang, "--target=wasm32", "-O2", "-nostdlib", "-Wall", "-Werror",
		"-Wl,--no-entry", "-o", wasm, c).CombinedOutput()
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	b, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	var last *instance
	for _, rc := range []wazero.RuntimeConfig{wazero.NewRuntimeConfig(), wazero.NewRuntimeConfigInterpreter()} {
		in := load(t, rc, b, goldenSeed)
		in.play(0, goldenTicks, goldenPlayers)
		hashes = append(hashes, hashOf(in.memory()))
		last = in
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("compiler %s, interpreter %s", hashes[0], hashes[1])
	}
	addr := uint32(last.call("rewind_draw", api.EncodeI32(0), api.EncodeI32(320), api.EncodeI32(240), 0))
	var l = checkDrawListOf(t, last.memory(), addr)
	scored := 0
	for i := range l.Len() {
		if c := l.Command(i); c.Args[3] == 3 && c.Args[2] > 0 {
			scored++
		}
	}
	if l.Len() != 2+2*goldenPlayers || scored == 0 {
		t.Errorf("draw list of %d commands, %d score bars longer than 0: want %d and some", l.Len(), scored, 2+2*goldenPlayers)
	}
}
