package modules

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// required says whether a missing toolchain fails the test rather than
// skipping it: under CI, which installs them all (.ci/run).
func required() bool { return os.Getenv("CI") != "" }

// TestModulesRebuild rebuilds each example module with its build.sh into
// a temporary directory and compares the bytes with the checked-in .wasm:
// the builds are reproducible (pinned compilers, no paths or names in the
// output). A build.sh that exits 3 lacks its toolchain: the test skips
// that language, saying so, except under CI. The AssemblyScript build
// costs ~5 CPU-seconds (its compiler and Binaryen run in Node): it runs
// only with REWIND_MODULES_ASC=1, which .ci/run sets in a stage of its
// own (C and Rust take ~0.4 CPU-seconds each and always run).
func TestModulesRebuild(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	for _, ex := range All() {
		t.Run(ex.Name, func(t *testing.T) {
			lang := filepath.Dir(ex.Path)
			if lang == "assemblyscript" && os.Getenv("REWIND_MODULES_ASC") == "" {
				t.Skip("the AssemblyScript rebuild (~5 CPU-s) runs with REWIND_MODULES_ASC=1 (.ci/run sets it in its own stage)")
			}
			out := filepath.Join(dir, ex.Name+".wasm")
			cmd := exec.Command("sh", filepath.Join(lang, "build.sh"), out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.ExitCode() == 3 {
				msg := strings.TrimSpace(stderr.String())
				if required() {
					t.Fatalf("CI installs every toolchain: %s", msg)
				}
				t.Skipf("toolchain missing: %s", msg)
			}
			if err != nil {
				t.Fatalf("%s/build.sh: %v\n%s", lang, err, stderr.String())
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, ex.Wasm) {
				t.Errorf("%s/build.sh built %d bytes unlike the checked-in %s's %d: rebuild with scripts/build-modules.sh and check in",
					lang, len(got), ex.Path, len(ex.Wasm))
			}
		})
	}
}

// TestModulesNode plays each example module's 1,800 seeded ticks in
// Node's WebAssembly engine (V8, play.js) and compares the memory's hash
// with wazero's (the golden one, TestModulesPlay). It skips without node,
// saying so, except under CI.
func TestModulesNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if required() {
			t.Fatal("CI installs node: not found")
		}
		t.Skip("node not found: V8's half of the comparison is left out")
	}
	for _, ex := range All() {
		out, err := exec.Command(node, "play.js", ex.Path, "1800", "42", "4").CombinedOutput()
		if err != nil {
			t.Fatalf("node play.js %s: %v\n%s", ex.Path, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != golden[ex.Name] {
			t.Errorf("%s: V8's memory hash after 1800 ticks %s, wazero's %s", ex.Name, got, golden[ex.Name])
		}
	}
}
