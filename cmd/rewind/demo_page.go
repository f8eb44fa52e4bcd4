package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
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

// The browser page of `rewind demo`: the Go client compiled to js/wasm
// (the view module's ./page), Go's wasm_exec.js, and an HTML page that
// loads them. The wasm is not committed: the demo builds it on its first
// run with `go` from PATH, from the source tree it runs in, into the
// user's cache directory (os.UserCacheDir()/rewind/page/KEY, KEY a hash of
// the Go version and every non-test .go, go.mod and go.sum file of the
// tree), and serves it compressed: zstd to browsers that accept it, gzip
// to the others. A later run with the same sources finds the build there.

// viewModule is the module path of the view's nested module.
const viewModule = "github.com/rewindnet/rewind/view"

// pageFiles are the built page's files, held in memory.
type pageFiles struct {
	key              string // the build's cache key (the wasm's ETag)
	wasm, gz, zst    []byte
	wasmExec         []byte
	built            bool          // built by this run (not found in the cache)
	took             time.Duration // the build's time, when built
	dir              string
	goBin, sourceDir string
}

// errNoGo and errNoSource say what the first-run build lacks.
var (
	errNoGo     = errors.New("the browser page is built on the demo's first run with the Go toolchain, and there is no `go` on PATH (install Go, or run with --no-page for the relay and the room without the page)")
	errNoSource = errors.New("the browser page is built from rewind's source tree, and it was not found: run rewind demo from a clone of rewind (the directory with go.mod and view/go.mod, e.g. `go run ./cmd/rewind demo`), or run with --no-page")
)

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
		if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) && name != "go.mod" && name != "go.sum" {
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

// Names of the files in a page build's cache directory.
const (
	wasmName     = "rewind.wasm"
	wasmExecName = "wasm_exec.js"
)

// loadPage returns the page's files: from the cache when this source tree
// was built before, else built now (a progress line and a summary on
// progress).
func loadPage(progress io.Writer) (*pageFiles, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, errNoGo
	}
	src, err := locateSource()
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
	key, err := sourceKey(src, env[0])
	if err != nil {
		return nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("no cache directory for the page's build: %w", err)
	}
	p := &pageFiles{key: key, dir: filepath.Join(cache, "rewind", "page", key), goBin: goBin, sourceDir: src}
	if err := p.read(); err == nil {
		return p, nil
	}
	fmt.Fprintf(progress, "rewind demo: building the browser page's wasm client (first run for these sources; about a minute, more with an empty Go build cache) from %s into %s\n", src, p.dir)
	start := time.Now()
	if err := p.build(env[1]); err != nil {
		return nil, err
	}
	p.built, p.took = true, time.Since(start)
	fmt.Fprintf(progress, "rewind demo: page built in %.0fs: wasm %.1f MB, %.1f MB zstd, %.1f MB gzip\n",
		p.took.Seconds(), mb(len(p.wasm)), mb(len(p.zst)), mb(len(p.gz)))
	pruneBuilds(filepath.Dir(p.dir), keepBuilds)
	return p, nil
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
func (p *pageFiles) read() error {
	var err error
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{wasmName, &p.wasm}, {wasmName + ".gz", &p.gz}, {wasmName + ".zst", &p.zst}, {wasmExecName, &p.wasmExec}} {
		if *f.dst, err = os.ReadFile(filepath.Join(p.dir, f.name)); err != nil {
			return err
		}
	}
	return nil
}

// build compiles the view module's ./page for js/wasm, compresses it and
// copies wasm_exec.js from goroot, into a temporary directory renamed to
// p.dir when complete.
func (p *pageFiles) build(goroot string) error {
	if err := os.MkdirAll(filepath.Dir(p.dir), 0o755); err != nil {
		return fmt.Errorf("page build: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(p.dir), "build-")
	if err != nil {
		return fmt.Errorf("page build: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(p.goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(tmp, wasmName), "./page")
	cmd.Dir = filepath.Join(p.sourceDir, "view")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the page's wasm (GOOS=js GOARCH=wasm go build ./page in %s): %v\n%s", cmd.Dir, err, out)
	}
	if p.wasm, err = os.ReadFile(filepath.Join(tmp, wasmName)); err != nil {
		return err
	}
	if p.wasmExec, err = os.ReadFile(filepath.Join(goroot, "lib", "wasm", wasmExecName)); err != nil {
		return fmt.Errorf("Go's %s: %w", wasmExecName, err)
	}
	var zerr, gerr error // the two encodings at once: about 6 s each here
	var wg sync.WaitGroup
	wg.Go(func() { p.zst, zerr = zstdBest(p.wasm) })
	wg.Go(func() { p.gz, gerr = gzipBest(p.wasm) })
	wg.Wait()
	if err := errors.Join(zerr, gerr); err != nil {
		return fmt.Errorf("compressing the page's wasm: %w", err)
	}
	for name, b := range map[string][]byte{wasmName + ".zst": p.zst, wasmName + ".gz": p.gz, wasmExecName: p.wasmExec} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, p.dir); err != nil && !dirExists(p.dir) { // another run may have won the race
		return fmt.Errorf("page build: %w", err)
	}
	return nil
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

// serveWasm writes the wasm: zstd where accepted, else gzip where
// accepted, else uncompressed.
func (p *pageFiles) serveWasm(w http.ResponseWriter, r *http.Request) {
	body, enc := p.wasm, ""
	ae := r.Header.Get("Accept-Encoding")
	switch {
	case acceptsEncoding(ae, "zstd"):
		body, enc = p.zst, "zstd"
	case acceptsEncoding(ae, "gzip"):
		body, enc = p.gz, "gzip"
	}
	h := w.Header()
	h.Set("Content-Type", "application/wasm")
	h.Set("Vary", "Accept-Encoding")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", `"`+p.key+enc+`"`)
	if enc != "" {
		h.Set("Content-Encoding", enc)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// serveWasmExec writes Go's wasm_exec.js of the Go that built the wasm.
func (p *pageFiles) serveWasmExec(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", `"`+p.key+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(p.wasmExec))
}

// mount serves the wasm and wasm_exec.js on mux.
func (p *pageFiles) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /"+wasmName, p.serveWasm)
	mux.HandleFunc("GET /"+wasmExecName, p.serveWasmExec)
}

// demoPage is the page at /: with the wasm built, the sand match itself
// (the Go client in the browser); with --no-page, a signpost saying how
// to join from a terminal.
type demoPage struct {
	relay string
	play  bool // the wasm is served: the page plays
	mu    sync.Mutex
	code  string
	flags string
	grid  int
	rate  int
}

func (p *demoPage) set(code string, gf gameFlags) {
	p.mu.Lock()
	p.code, p.flags, p.grid, p.rate = code, gf.playFlags(), gf.grid, gf.tickRate
	p.mu.Unlock()
}

var signpostTemplate = template.Must(template.New("demo").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewind demo: room {{.Code}}</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>rewind demo</h1>
<p>A sand match is hosted in room <strong style="font-size: 150%">{{if .Code}}{{.Code}}{{else}}(starting){{end}}</strong>.</p>
<p>Join it from a terminal with a headless bot:</p>
<pre>rewind play --headless --join {{.Code}} --relay {{.Relay}}{{.Flags}}</pre>
<p>From another machine, start the demo with <code>--http 0.0.0.0:8080</code> and use this machine's address in <code>--relay</code>.</p>
<p>This demo runs with <code>--no-page</code>: start it without that flag to play in this page.</p>
</body></html>
`))

// playTemplate is the playing page. The wasm reads the relay, the room,
// the grid and the tick rate from the body's data attributes (?room=CODE,
// ?watch=CODE&delay=D and ?until-tick=T from the URL), writes #status
// from its tick handler and points #mode at watching (or, watching, at
// playing) the same room; Ebitengine adds its canvas to the body. rewindTimes collects
// the page's timeline in ms since navigation: compiled (the wasm fetched
// and compiled), main (Go's main started), joined (the data channel to
// the host open), verified (the first verified tick).
var playTemplate = template.Must(template.New("play").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewind demo: room {{.Code}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { margin: 0; background: #08080c; color: #bbb; font: 12px monospace; }
#bar { position: fixed; left: 0; right: 0; bottom: 0; padding: 4px 8px; background: rgba(0,0,0,.75); z-index: 10; }
#status { color: #8c8; white-space: pre-wrap; word-break: break-all; }
</style></head>
<body data-relay="{{.Relay}}" data-room="{{.Code}}" data-grid="{{.Grid}}" data-tick-rate="{{.Rate}}">
<div id="bar">
<div id="status">room={{.Code}} player=- tick=0 verified_tick=0 verified_hash=0000000000000000 rollbacks=0 resyncs=0 ping_ms=0.0 state=loading desyncs=0</div>
<div><span id="hint">arrows/WASD move · space or mouse pours · 1–4: erase, sand, water, wall</span> · <a id="mode" href="?watch={{.Code}}" style="color: #8af">watch as a spectator</a> · from a terminal: <code>rewind play --headless --join {{.Code}} --relay {{.Relay}}{{.Flags}}</code> (or <code>rewind watch</code>)</div>
</div>
<script>window.rewindTimes = {};</script>
<script src="wasm_exec.js"></script>
<script>
const go = new Go();
WebAssembly.instantiateStreaming(fetch("rewind.wasm"), go.importObject)
  .then((r) => { rewindTimes.compiled = performance.now(); go.run(r.instance); })
  .catch((e) => { document.getElementById("status").textContent = "room={{.Code}} player=- tick=0 verified_tick=0 verified_hash=0000000000000000 rollbacks=0 resyncs=0 ping_ms=0.0 state=failed desyncs=0 error=" + String(e).replaceAll(" ", "_"); });
</script>
</body></html>
`))

// ServeHTTP writes the page.
func (p *demoPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	data := struct {
		Code, Relay, Flags string
		Grid, Rate         int
	}{p.code, p.relay, p.flags, p.grid, p.rate}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	t := signpostTemplate
	if p.play {
		t = playTemplate
	}
	_ = t.Execute(w, data)
}
