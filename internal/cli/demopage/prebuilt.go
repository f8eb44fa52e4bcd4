package demopage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The prebuilt page: the three programs and their JavaScript, built by
// `go generate ./internal/cli/demopage` (internal/tools/pagegen, which
// calls Generate) and committed, so that a first run plays without
// building the page (about two minutes of a fresh machine's first run)
// and a `go install`ed rewind, which has no view/ (a nested module is not
// in the module's zip), plays at all.
//
// prebuilt/MANIFEST says what it was built from: the page's source key
// (pageKey: every non-test .go file of the packages the three programs
// link from this repository, both modules' go.mod and go.sum, and the
// page's .js files) in two halves, the engine's (outside view/) and the
// view's, the Go version, the packages' directories, and each file's
// sha256. The demo serves it only when the sources it runs from hash to
// that key (in a clone; else it builds the page as before, into the
// cache), or, run outside a clone, when the engine's half matches this
// binary's module in the module cache: a stale prebuilt page is never
// served, it only stops saving the build until regenerated. A fresh
// build from the same sources with the same Go version gives the same
// bytes (-trimpath): Check proves it.
//
//go:embed prebuilt
var prebuiltFS embed.FS

// prebuiltDir is the prebuilt page's directory, in this package's source
// and in prebuiltFS.
const prebuiltDir = "prebuilt"

// manifestName is the prebuilt page's description.
const manifestName = "MANIFEST"

// manifest is what prebuilt/MANIFEST says.
type manifest struct {
	engineKey, viewKey string            // pageKey's halves
	goVersion          string            // the Go that built it
	dirs               []string          // the linked packages' directories, slash-separated, relative to the tree
	sums               map[string]string // file (as in pageAssets) → sha256 of its raw bytes
}

// manifestHeader starts MANIFEST.
const manifestHeader = "# rewind demo's prebuilt page: written by `go generate ./internal/cli/demopage`; do not edit\n"

// encode writes m as MANIFEST's text: one "key value…" line each.
func (m *manifest) encode() []byte {
	var b bytes.Buffer
	b.WriteString(manifestHeader)
	fmt.Fprintf(&b, "engine %s\nview %s\ngo %s\ndirs %s\n", m.engineKey, m.viewKey, m.goVersion, strings.Join(m.dirs, " "))
	for _, f := range pageAssets {
		fmt.Fprintf(&b, "sha256 %s %s\n", f, m.sums[f])
	}
	return b.Bytes()
}

// parseManifest reads MANIFEST's text.
func parseManifest(b []byte) (*manifest, error) {
	m := &manifest{sums: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch {
		case f[0] == "engine" && len(f) == 2:
			m.engineKey = f[1]
		case f[0] == "view" && len(f) == 2:
			m.viewKey = f[1]
		case f[0] == "go" && len(f) == 2:
			m.goVersion = f[1]
		case f[0] == "dirs":
			m.dirs = f[1:]
		case f[0] == "sha256" && len(f) == 3:
			m.sums[f[1]] = f[2]
		default:
			return nil, fmt.Errorf("prebuilt page's MANIFEST: line %q", sc.Text())
		}
	}
	if m.engineKey == "" || m.viewKey == "" || len(m.dirs) == 0 || len(m.sums) != len(pageAssets) {
		return nil, errors.New("prebuilt page's MANIFEST: incomplete")
	}
	return m, nil
}

// pageKey hashes the page's sources in root (a clone, or the engine's
// module alone when view is false): the non-test .go files of dirs (each
// directory alone, not below it; those under view/ only when view is
// true), go.mod and go.sum, and with view, view/go.mod, view/go.sum and
// view/page's .js files. It returns the engine's half (outside view/)
// and the view's.
func pageKey(root string, dirs []string, view bool) (engine, viewHalf string, err error) {
	he, hv := sha256.New(), sha256.New()
	add := func(h io.Writer, rel string) error {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	}
	files := func(h io.Writer, dir string, keep func(string) bool) error {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() && keep(e.Name()) {
				if err := add(h, pathJoin(dir, e.Name())); err != nil {
					return err
				}
			}
		}
		return nil
	}
	goFile := func(n string) bool { return strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") }
	for _, rel := range []string{"go.mod", "go.sum"} {
		if err := add(he, rel); err != nil {
			return "", "", err
		}
	}
	for _, dir := range dirs {
		inView := dir == "view" || strings.HasPrefix(dir, "view/")
		if inView && !view {
			continue
		}
		fmt.Fprintf(map[bool]io.Writer{false: he, true: hv}[inView], "dir %s\x00", dir)
		if err := files(map[bool]io.Writer{false: he, true: hv}[inView], dir, goFile); err != nil {
			return "", "", err
		}
	}
	if view {
		for _, rel := range []string{"view/go.mod", "view/go.sum"} {
			if err := add(hv, rel); err != nil {
				return "", "", err
			}
		}
		if err := files(hv, "view/page", func(n string) bool { return strings.HasSuffix(n, ".js") }); err != nil {
			return "", "", err
		}
	}
	return hex.EncodeToString(he.Sum(nil))[:20], hex.EncodeToString(hv.Sum(nil))[:20], nil
}

// pathJoin joins slash-separated parts ("" for the root).
func pathJoin(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// pageDirs lists the directories, relative to root and slash-separated,
// of the packages of this repository (both modules) that the page's
// three programs link, by asking go list.
func pageDirs(goBin, root string) ([]string, error) {
	view := filepath.Join(root, "view")
	cmd := exec.Command(goBin, "list", "-deps", "-f", "{{if .Module}}{{.Module.Path}} {{.Dir}}{{end}}", "./page", "./page/worker", "./page/relay")
	cmd.Dir, cmd.Env = view, append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list the page's packages: %v\n%s", err, stderr.String())
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		mod, dir, ok := strings.Cut(line, " ")
		if !ok || (mod != "github.com/rewindnet/rewind" && mod != viewModule) {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("go list: package directory %s is not in %s", dir, root)
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs), nil
}

// embeddedManifest returns the prebuilt page's manifest.
func embeddedManifest() (*manifest, error) {
	b, err := prebuiltFS.ReadFile(prebuiltDir + "/" + manifestName)
	if err != nil {
		return nil, fmt.Errorf("no prebuilt page: %w", err)
	}
	return parseManifest(b)
}

// prebuiltStatus says whether the prebuilt page may be served: from a
// clone at src (src != ""), when its sources hash to the manifest's key;
// else from engine, this binary's module directory (the module cache's
// copy, "" when not found), when its engine half does. why says what was
// compared, for the demo's log line.
func prebuiltStatus(m *manifest, src, engine string) (ok bool, why string) {
	if src != "" {
		e, v, err := pageKey(src, m.dirs, true)
		if err != nil {
			return false, fmt.Sprintf("the prebuilt page's sources are not all in %s (%v)", src, err)
		}
		if e != m.engineKey || v != m.viewKey {
			return false, "the prebuilt page is of other sources than " + src + " (go generate ./internal/cli/demopage makes it current)"
		}
		return true, "the prebuilt page (internal/cli/demopage/prebuilt, of these sources)"
	}
	if engine == "" {
		return false, "no source tree, and this binary's module was not found in the module cache to check the prebuilt page against"
	}
	if e, _, err := pageKey(engine, m.dirs, false); err != nil || e != m.engineKey {
		return false, "the page built into this rewind is of other engine sources than its own (" + engine + ")"
	}
	return true, "the prebuilt page (built into this rewind, of its engine sources " + engine + ")"
}

// moduleDir returns this binary's module's directory in the module cache
// (a `go install …@VERSION` build), or "".
func moduleDir() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != "github.com/rewindnet/rewind" || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		if goBin, err := exec.LookPath("go"); err == nil {
			if out, err := exec.Command(goBin, "env", "GOMODCACHE").Output(); err == nil {
				cache = strings.TrimSpace(string(out))
			}
		}
	}
	if cache == "" {
		return ""
	}
	dir := filepath.Join(cache, "github.com", "rewindnet", "rewind@"+bi.Main.Version)
	if !dirExists(dir) {
		return ""
	}
	return dir
}

// loadPrebuilt reads the prebuilt page into p's assets: the wasm from
// its zstd (served as it is to browsers that accept zstd; gzip made at
// the first request for it); the JavaScript compressed now.
func (p *Files) loadPrebuilt(m *manifest) error {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return err
	}
	defer dec.Close()
	p.assets = nil
	for _, f := range pageAssets {
		var raw, zst []byte
		if strings.HasSuffix(f, ".wasm") {
			if zst, err = fs.ReadFile(prebuiltFS, prebuiltDir+"/"+f+".zst"); err == nil {
				raw, err = dec.DecodeAll(zst, nil)
			}
		} else {
			raw, err = fs.ReadFile(prebuiltFS, prebuiltDir+"/"+f)
		}
		if err != nil {
			return fmt.Errorf("the prebuilt page: %w", err)
		}
		if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != m.sums[f] {
			return fmt.Errorf("the prebuilt page: %s does not hash as its MANIFEST says", f)
		}
		var a *asset
		if zst != nil {
			a = newAsset(f, raw, nil, zst) // gzip made at the first request for it (serve)
		} else if a, err = compressed(f, raw); err != nil {
			return err
		}
		p.assets = append(p.assets, a)
	}
	return nil
}
