//go:generate go run ../../tools/pagegen

// Package demopage builds and serves the browser page of `rewind
// demo`: three Go programs compiled to js/wasm from the view module, the
// page's drawing program (./page: the canvas, the keys), its match
// Worker's (./page/worker: the client, the game, the tick handler) and
// its relay program (./page/relay: hosting and a host migration's
// claims, fetched only when needed), their JavaScript (view/page/boot.js, written inline in the page, page.js and worker.js), Go's
// wasm_exec.js, and an HTML page that loads them. A prebuilt page is
// committed (prebuilt/, prebuilt.go: `go generate ./internal/cli/demopage`
// writes it): the demo serves it when it is of the sources at hand, at
// once and without go. Else the demo builds the page on its first run
// with `go` from PATH, from the source tree it runs in, into the user's
// cache directory
// (os.UserCacheDir()/rewind/page/KEY, KEY a hash of the Go version and
// every non-test .go, go.mod and go.sum file of the tree and the view's
// .js files). Every file is served under a content-hashed name
// (page.0123456789ab.wasm) with a year's cache lifetime, so a second visit
// fetches and compiles nothing new, compressed: zstd to browsers that
// accept it, gzip to the others. A later run with the same sources finds
// the build there.
package demopage

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// viewModule is the module path of the view's nested module.
const viewModule = "github.com/rewindnet/rewind/view"

// Files are the built page's files, held in memory: Prepare finds
// them, Load reads or builds them, Mount serves them.
type Files struct {
	key              string   // the build's cache key
	assets           []*asset // in pageAssets' order
	built            bool     // built by this run (not found in the cache)
	took             time.Duration
	dir              string
	goBin, sourceDir string
	prebuilt         *manifest // serve the prebuilt page (prebuilt.go)
	why              string    // why the prebuilt page is or is not served
}

// asset is one file of the page as served: under a content-hashed name,
// raw and compressed.
type asset struct {
	file, name, ctype string // file: its name in the build; name: as served
	raw, gz, zst      []byte
	gzOnce            sync.Once // makes gz at the first gzip request when nil (the prebuilt page's wasm)
}

// The page's files in a build's cache directory (with .gz and .zst
// beside each): the three programs, the JavaScript that starts them
// (boot.js is written inline in the page's head), and Go's wasm_exec.js.
const (
	pageWasm     = "page.wasm"
	workerWasm   = "worker.wasm"
	relayWasm    = "relay.wasm"
	bootJS       = "boot.js"
	pageJS       = "page.js"
	workerJS     = "worker.js"
	wasmExecName = "wasm_exec.js"
)

// pageAssets are the names of a build's files, in Files.assets' order.
var pageAssets = []string{pageWasm, workerWasm, relayWasm, bootJS, pageJS, workerJS, wasmExecName}

// get returns the asset of file.
func (p *Files) get(file string) *asset {
	for _, a := range p.assets {
		if a.file == file {
			return a
		}
	}
	return nil
}

// newAsset names a file's bytes by their hash: page.wasm becomes
// page.0123456789ab.wasm.
func newAsset(file string, raw, gz, zst []byte) *asset {
	sum := sha256.Sum256(raw)
	ext := filepath.Ext(file)
	ctype := "text/javascript; charset=utf-8"
	if ext == ".wasm" {
		ctype = "application/wasm"
	}
	return &asset{file: file, name: strings.TrimSuffix(file, ext) + "." + hex.EncodeToString(sum[:6]) + ext, ctype: ctype,
		raw: raw, gz: gz, zst: zst}
}

// findSource returns the root of rewind's source tree: the nearest
// directory at or above start whose go.mod is the engine's and which has
// view/go.mod.
func findSource(start string) (string, bool) {
	start, err := filepath.Abs(start)
	if err != nil {
		return "", false
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/rewindnet/rewind\n")) {
			if v, err := os.ReadFile(filepath.Join(dir, "view", "go.mod")); err == nil && bytes.HasPrefix(v, []byte("module "+viewModule+"\n")) {
				return dir, true
			}
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// locateSource finds the source tree from the working directory, else
// from where this file was compiled (a binary built from a clone and run
// elsewhere on the same machine).
func locateSource() (string, error) {
	if wd, err := os.Getwd(); err == nil {
		if dir, ok := findSource(wd); ok {
			return dir, nil
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir, ok := findSource(filepath.Dir(file)); ok {
			return dir, nil
		}
	}
	return "", errNoSource
}

// sourceKey hashes the Go version and the tree's non-test Go sources,
// go.mod and go.sum files: the page's cache key.
func sourceKey(root, goVersion string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", goVersion, runtime.GOOS)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		js := strings.HasSuffix(name, ".js") && strings.HasPrefix(filepath.ToSlash(path), filepath.ToSlash(root)+"/view/")
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) && name != "go.mod" && name != "go.sum" && !js {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing the sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// Prepare finds what the page's build needs (go on PATH, the source
// tree, the cache directory) and the build's key; Load then reads or
// builds it, given the GOROOT it returns. Its errors are the demo's
// (errNoGo, errNoSource).
//
// The prebuilt page (prebuilt.go) comes first: where it is of the
// sources at hand, Load serves it and neither go nor a build is needed.
func Prepare() (p *Files, goroot string, err error) {
	src, srcErr := locateSource()
	if m, err := embeddedManifest(); err == nil {
		engine := ""
		if srcErr != nil {
			src, engine = "", moduleDir()
		}
		ok, why := prebuiltStatus(m, src, engine)
		if ok {
			return &Files{prebuilt: m, why: why}, "", nil
		}
		if srcErr != nil {
			return nil, "", fmt.Errorf("%w (%s)", srcErr, why)
		}
		defer func() {
			if p != nil {
				p.why = why
			}
		}()
	}
	if srcErr != nil {
		return nil, "", srcErr
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, "", errNoGo
	}
	out, err := exec.Command(goBin, "env", "GOVERSION", "GOROOT").Output()
	if err != nil {
		return nil, "", fmt.Errorf("%s env: %w", goBin, err)
	}
	env := strings.Fields(string(out))
	if len(env) != 2 {
		return nil, "", fmt.Errorf("%s env GOVERSION GOROOT printed %q", goBin, out)
	}
	key, err := sourceKey(src, env[0])
	if err != nil {
		return nil, "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, "", fmt.Errorf("no cache directory for the page's build: %w", err)
	}
	return &Files{key: key, dir: filepath.Join(cache, "rewind", "page", key), goBin: goBin, sourceDir: src}, env[1], nil
}

// Load reads the page's files from the cache when this source tree was
// built before, else builds them now (a line on log as it starts and a
// summary at the end; progress gets the build's steps).
func (p *Files) Load(goroot string, log io.Writer, progress func(string)) error {
	if p.prebuilt != nil {
		fmt.Fprintf(log, "rewind demo: serving %s\n", p.why)
		return p.loadPrebuilt(p.prebuilt)
	}
	if err := p.read(); err == nil {
		return nil
	}
	if p.why != "" {
		fmt.Fprintf(log, "rewind demo: not serving the prebuilt page: %s\n", p.why)
	}
	fmt.Fprintf(log, "rewind demo: building the browser page's wasm client (first run for these sources; about a minute, more with an empty Go build cache) from %s into %s\n", p.sourceDir, p.dir)
	start := time.Now()
	if err := p.build(goroot, progress); err != nil {
		return err
	}
	p.built, p.took = true, time.Since(start)
	for _, f := range []string{pageWasm, workerWasm, relayWasm} {
		a := p.get(f)
		fmt.Fprintf(log, "rewind demo: page built in %.0fs: %s %.1f MB, %.1f MB zstd, %.1f MB gzip\n",
			p.took.Seconds(), f, mb(len(a.raw)), mb(len(a.zst)), mb(len(a.gz)))
	}
	pruneBuilds(filepath.Dir(p.dir), keepBuilds)
	return nil
}

// keepBuilds is how many page builds the cache keeps (each of other
// sources, about 35 MB): the newest, so that switching between two
// checkouts does not rebuild every time.
const keepBuilds = 3

// pruneBuilds removes all but the keep most recently modified builds
// from dir (and build-* leftovers of interrupted builds older than an
// hour).
func pruneBuilds(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type build struct {
		name string
		mod  time.Time
	}
	var builds []build
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), "build-") {
			if time.Since(info.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
			continue
		}
		builds = append(builds, build{e.Name(), info.ModTime()})
	}
	sort.Slice(builds, func(i, j int) bool { return builds[i].mod.After(builds[j].mod) })
	for _, b := range builds[min(keep, len(builds)):] {
		os.RemoveAll(filepath.Join(dir, b.name))
	}
}

func mb(n int) float64 { return float64(n) / 1e6 }

// read loads a finished build from p.dir.
func (p *Files) read() error {
	p.assets = nil
	for _, f := range pageAssets {
		var b [3][]byte
		for i, ext := range []string{"", ".gz", ".zst"} {
			var err error
			if b[i], err = os.ReadFile(filepath.Join(p.dir, f+ext)); err != nil {
				return err
			}
		}
		p.assets = append(p.assets, newAsset(f, b[0], b[1], b[2]))
	}
	return nil
}

// build compiles the view module's ./page, ./page/worker and ./page/relay for js/wasm,
// takes boot.js, page.js and worker.js from view/page and wasm_exec.js from goroot,
// and compresses them, into a temporary directory renamed to p.dir when
// complete.
func (p *Files) build(goroot string, progress func(string)) error {
	if err := os.MkdirAll(filepath.Dir(p.dir), 0o755); err != nil {
		return fmt.Errorf("page build: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(p.dir), "build-")
	if err != nil {
		return fmt.Errorf("page build: %w", err)
	}
	defer os.RemoveAll(tmp)
	view := filepath.Join(p.sourceDir, "view")
	if err := p.compile(view, tmp, progress); err != nil {
		return err
	}
	progress("compressing")
	p.assets = nil
	for _, f := range pageAssets {
		raw, err := readBuilt(f, view, tmp, goroot)
		if err != nil {
			return err
		}
		a, err := compressed(f, raw)
		if err != nil {
			return err
		}
		for ext, b := range map[string][]byte{"": a.raw, ".gz": a.gz, ".zst": a.zst} {
			if err := os.WriteFile(filepath.Join(tmp, f+ext), b, 0o644); err != nil {
				return err
			}
		}
		p.assets = append(p.assets, a)
	}
	if err := os.Rename(tmp, p.dir); err != nil && !dirExists(p.dir) { // another run may have won the race
		return fmt.Errorf("page build: %w", err)
	}
	return nil
}

// readBuilt reads the page's file f once compiled into dir: the wasm
// from dir, the JavaScript from view/page and goroot.
func readBuilt(f, view, dir, goroot string) ([]byte, error) {
	from := map[string]string{pageWasm: dir, workerWasm: dir, relayWasm: dir, bootJS: filepath.Join(view, "page"), pageJS: filepath.Join(view, "page"),
		workerJS: filepath.Join(view, "page"), wasmExecName: filepath.Join(goroot, "lib", "wasm")}[f]
	raw, err := os.ReadFile(filepath.Join(from, f))
	if err != nil {
		return nil, fmt.Errorf("page build: %w", err)
	}
	return raw, nil
}

// compile builds the three programs into dir with go build -v, telling
// progress how many packages it compiled of how many they link.
func (p *Files) compile(view, dir string, progress func(string)) error {
	env := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	list := exec.Command(p.goBin, "list", "-deps", "./page/worker", "./page", "./page/relay")
	list.Dir, list.Env = view, env
	out, _ := list.Output()
	total := bytes.Count(out, []byte("\n"))
	start := time.Now()
	compiled := 0
	for _, b := range []struct{ out, pkg string }{{workerWasm, "./page/worker"}, {pageWasm, "./page"}, {relayWasm, "./page/relay"}} {
		cmd := exec.Command(p.goBin, "build", "-v", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, b.out), b.pkg)
		cmd.Dir, cmd.Env = view, env
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("building the page's wasm: %w", err)
		}
		var msgs bytes.Buffer
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, " ") || strings.HasPrefix(line, "#") { // not a package's path: a message
				msgs.WriteString(line + "\n")
				continue
			}
			compiled++
			progress(fmt.Sprintf("%s: %d packages compiled (of %d linked), %.0f s", b.out, compiled, total, time.Since(start).Seconds()))
		}
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("building the page's wasm (GOOS=js GOARCH=wasm go build %s in %s): %v\n%s", b.pkg, view, err, msgs.String())
		}
	}
	return nil
}

// compressed returns the asset of file with its zstd and gzip encodings
// (made at once: about 6 s each for the page's wasm here).
func compressed(file string, raw []byte) (*asset, error) {
	var zst, gz []byte
	var zerr, gerr error
	var wg sync.WaitGroup
	wg.Go(func() { zst, zerr = zstdBest(raw) })
	wg.Go(func() { gz, gerr = gzipBest(raw) })
	wg.Wait()
	if err := errors.Join(zerr, gerr); err != nil {
		return nil, fmt.Errorf("compressing %s: %w", file, err)
	}
	return newAsset(file, raw, gz, zst), nil
}

func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

func zstdBest(b []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil), nil
}

func gzipBest(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// acceptsEncoding reports whether an Accept-Encoding header value accepts
// enc (with a q-value above zero).
func acceptsEncoding(header, enc string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), enc) {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// serve writes the asset: zstd where accepted, else gzip where
// accepted, else uncompressed; cached for a year (its name changes with
// its bytes).
func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	body, enc := a.raw, ""
	ae := r.Header.Get("Accept-Encoding")
	switch {
	case acceptsEncoding(ae, "zstd"):
		body, enc = a.zst, "zstd"
	case acceptsEncoding(ae, "gzip"):
		a.gzOnce.Do(func() {
			if a.gz == nil {
				a.gz, _ = gzipFast(a.raw) // to bytes.Buffer: cannot fail
			}
		})
		body, enc = a.gz, "gzip"
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Vary", "Accept-Encoding")
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", `"`+a.name+enc+`"`)
	if enc != "" {
		h.Set("Content-Encoding", enc)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// Mount serves the page's files on mux under their hashed names.
func (p *Files) Mount(mux *http.ServeMux) {
	for _, a := range p.assets {
		mux.HandleFunc("GET /"+a.name, a.serve)
	}
}
