package demopage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// builder is what Generate and Check build the page with: go, its
// version and GOROOT, the clone, and the page's directories and key.
type builder struct {
	goBin, goVersion, goroot, root string
	m                              manifest
}

// newBuilder finds go and the clone and hashes the page's sources.
func newBuilder() (*builder, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, errNoGo
	}
	root, err := locateSource()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(goBin, "env", "GOVERSION", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("%s env: %w", goBin, err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		return nil, fmt.Errorf("%s env GOVERSION GOROOT printed %q", goBin, out)
	}
	b := &builder{goBin: goBin, goVersion: env[0], goroot: env[1], root: root}
	if b.m.dirs, err = pageDirs(goBin, root); err != nil {
		return nil, err
	}
	if b.m.engineKey, b.m.viewKey, err = pageKey(root, b.m.dirs, true); err != nil {
		return nil, err
	}
	b.m.goVersion, b.m.sums = env[0], map[string]string{}
	return b, nil
}

// build compiles the page's programs into a temporary directory (and
// removes it) and returns each file's raw bytes, noting their sha256 in
// b.m.
func (b *builder) build(log io.Writer) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "rewind-pagegen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	p := &Files{goBin: b.goBin, sourceDir: b.root}
	view := filepath.Join(b.root, "view")
	start, last := time.Now(), time.Now()
	err = p.compile(view, tmp, func(s string) {
		if time.Since(last) >= 10*time.Second {
			fmt.Fprintf(log, "pagegen: %s\n", s)
			last = time.Now()
		}
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "pagegen: built in %.0f s\n", time.Since(start).Seconds())
	files := map[string][]byte{}
	for _, f := range pageAssets {
		raw, err := readBuilt(f, view, tmp, b.goroot)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(raw)
		files[f], b.m.sums[f] = raw, hex.EncodeToString(sum[:])
	}
	return files, nil
}

// Generate builds the page from the clone it runs in and writes it, with
// its MANIFEST, into internal/cli/demopage/prebuilt (what `go generate
// ./internal/cli/demopage` runs, through internal/tools/pagegen): the
// wasm zstd-compressed, the JavaScript as it is.
func Generate(log io.Writer) error {
	b, err := newBuilder()
	if err != nil {
		return err
	}
	files, err := b.build(log)
	if err != nil {
		return err
	}
	if e, v, err := pageKey(b.root, b.m.dirs, true); err != nil || e != b.m.engineKey || v != b.m.viewKey {
		return fmt.Errorf("the page's sources changed while it was built (%v): run it again", err)
	}
	dir := filepath.Join(b.root, "internal", "cli", "demopage", prebuiltDir)
	old, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range old {
		if filepath.Base(f) != "README.md" {
			os.Remove(f)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var total int
	for _, f := range pageAssets {
		name, body := f, files[f]
		if strings.HasSuffix(name, ".wasm") {
			if body, err = zstdBest(body); err != nil {
				return err
			}
			name += ".zst"
		}
		total += len(body)
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), b.m.encode(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "pagegen: wrote %s (%.1f MB; engine=%s view=%s %s)\n", dir, mb(total), b.m.engineKey, b.m.viewKey, b.goVersion)
	return nil
}

// Check builds the page's programs from the clone it runs in (writing
// nothing) and proves that the prebuilt page is what these sources
// build: their key is the MANIFEST's, and the build (with the MANIFEST's
// Go version) gave the same bytes, file by file. A stale page (other
// sources) is ErrStale; a different Go, ErrOtherGo: the demo then builds
// the page instead of serving it, so neither is wrong.
func Check(log io.Writer) error {
	b, err := newBuilder()
	if err != nil {
		return err
	}
	m, err := embeddedManifest()
	if err != nil {
		return err
	}
	if _, err := b.build(log); err != nil { // built even when stale: the programs build
		return err
	}
	if m.engineKey != b.m.engineKey || m.viewKey != b.m.viewKey || strings.Join(m.dirs, " ") != strings.Join(b.m.dirs, " ") {
		return fmt.Errorf("%w: its MANIFEST says engine=%s view=%s, these sources hash to engine=%s view=%s", ErrStale, m.engineKey, m.viewKey, b.m.engineKey, b.m.viewKey)
	}
	if m.goVersion != b.goVersion {
		return fmt.Errorf("%w: the prebuilt page was built by %s, this is %s", ErrOtherGo, m.goVersion, b.goVersion)
	}
	for _, f := range pageAssets {
		if m.sums[f] != b.m.sums[f] {
			return fmt.Errorf("the prebuilt page's %s is not what these sources build (sha256 %s, built %s)", f, m.sums[f], b.m.sums[f])
		}
	}
	fmt.Fprintf(log, "pagegen: the prebuilt page is what these sources build with %s (engine=%s view=%s)\n", b.goVersion, m.engineKey, m.viewKey)
	return nil
}

// gzipFast is b gzipped at the default level: the prebuilt page's gzip
// for browsers without zstd, made at start (well under a second).
func gzipFast(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
