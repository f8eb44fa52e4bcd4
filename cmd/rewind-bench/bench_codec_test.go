package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/internal/tools/doomdemo"
)

func TestBenchCodecBadFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.lmp"), doomdemo.Synthetic(1, 10, 1), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.lmp"), []byte{109, 1, 2}, 0o644)
	var out, errb bytes.Buffer
	err := runBenchCodec([]string{"--demos", dir}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "bad.lmp") {
		t.Fatalf("err = %v, want one naming bad.lmp", err)
	}
	if code := run([]string{"bench", "codec", "--demos", dir}, &out, &errb); code == 0 {
		t.Fatal("exit status 0 for a bad demo")
	}
}

func TestBenchCodecMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	var out, errb bytes.Buffer
	err := runBenchCodec([]string{"--demos", missing}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no such directory") || strings.Contains(err.Error(), "*.lmp") {
		t.Fatalf("err = %v, want one saying no such directory", err)
	}
	// A file, not a directory.
	file := filepath.Join(t.TempDir(), "x.lmp")
	os.WriteFile(file, doomdemo.Synthetic(1, 10, 1), 0o644)
	if err := runBenchCodec([]string{"--demos", file}, &out, &errb); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("err = %v, want one saying not a directory", err)
	}
	// An empty directory still says there are no demos in it.
	if err := runBenchCodec([]string{"--demos", t.TempDir()}, &out, &errb); err == nil || !strings.Contains(err.Error(), "no *.lmp demos") {
		t.Fatalf("err = %v, want no *.lmp demos", err)
	}
}

// The default directory is relative to the repository root: run from
// elsewhere, the error says so.
func TestBenchCodecDefaultDirElsewhere(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	err := runBenchCodec(nil, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no such directory") || !strings.Contains(err.Error(), "repository root") || !strings.Contains(err.Error(), "--demos") {
		t.Fatalf("err = %v, want one saying to run from the repository root or pass --demos", err)
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
