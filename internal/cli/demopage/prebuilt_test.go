package demopage

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// tree writes a small clone: both modules' go.mod and go.sum, an engine
// package, a view package, the page's .js and a package the page does
// not link.
func tree(t *testing.T) (root string, write func(rel, s string)) {
	root = t.TempDir()
	write = func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, s := range map[string]string{
		"go.mod": "module github.com/rewindnet/rewind\n", "go.sum": "", "client/c.go": "package client\n",
		"view/go.mod": "module " + viewModule + "\n", "view/go.sum": "", "view/page/main.go": "package main\n",
		"view/page/page.js": "//\n", "relay/r.go": "package relay\n",
	} {
		write(rel, s)
	}
	return root, write
}

// TestPageKey: the key's engine half changes with a linked engine
// package's file or go.mod, its view half with a view file or the
// page's .js; neither with a test file or a package the page does not
// link; without view/ (a module cache's copy) the engine half is the
// same.
func TestPageKey(t *testing.T) {
	root, write := tree(t)
	dirs := []string{"client", "view/page"}
	key := func() (string, string) {
		t.Helper()
		e, v, err := pageKey(root, dirs, true)
		if err != nil {
			t.Fatal(err)
		}
		return e, v
	}
	e0, v0 := key()
	if e, _, err := pageKey(root, dirs, false); err != nil || e != e0 {
		t.Errorf("engine half without the view: %s, %v; want %s", e, err, e0)
	}
	write("client/c_test.go", "package client\n")
	write("relay/r.go", "package relay // changed\n")
	if e, v := key(); e != e0 || v != v0 {
		t.Errorf("a test file or an unlinked package changed the key: %s %s, was %s %s", e, v, e0, v0)
	}
	write("view/page/page.js", "// changed\n")
	e1, v1 := key()
	if e1 != e0 || v1 == v0 {
		t.Errorf("page.js changed: %s %s, was %s %s (want the view half only)", e1, v1, e0, v0)
	}
	write("client/c.go", "package client // changed\n")
	e2, v2 := key()
	if e2 == e1 || v2 != v1 {
		t.Errorf("client changed: %s %s, was %s %s (want the engine half only)", e2, v2, e1, v1)
	}
	write("go.mod", "module github.com/rewindnet/rewind\n\ngo 1.26\n")
	if e, _ := key(); e == e2 {
		t.Error("go.mod changed, the engine half did not")
	}
	if _, _, err := pageKey(root, append(dirs, "gone"), true); err == nil {
		t.Error("a linked package's directory missing (moved): no error")
	}
}

// TestPrebuiltStatus: the prebuilt page is served from a clone whose
// sources are its own, not once one changes (saying why), and outside a
// clone when this binary's module (no view/) has its engine half.
func TestPrebuiltStatus(t *testing.T) {
	root, write := tree(t)
	m := &manifest{dirs: []string{"client", "view/page"}}
	var err error
	if m.engineKey, m.viewKey, err = pageKey(root, m.dirs, true); err != nil {
		t.Fatal(err)
	}
	if ok, why := prebuiltStatus(m, root, ""); !ok {
		t.Errorf("its own sources: not served: %s", why)
	}
	mod := t.TempDir() // the module cache's copy: the engine alone
	for _, rel := range []string{"go.mod", "go.sum", "client/c.go"} {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		os.MkdirAll(filepath.Dir(filepath.Join(mod, rel)), 0o755)
		os.WriteFile(filepath.Join(mod, rel), b, 0o644)
	}
	if ok, why := prebuiltStatus(m, "", mod); !ok {
		t.Errorf("its own engine's module: not served: %s", why)
	}
	if ok, _ := prebuiltStatus(m, "", ""); ok {
		t.Error("no clone, no module: served unchecked")
	}
	write("view/page/page.js", "// changed\n")
	if ok, why := prebuiltStatus(m, root, ""); ok || !strings.Contains(why, "go generate ./internal/cli/demopage") {
		t.Errorf("a changed page.js: served %v, %q", ok, why)
	}
	os.WriteFile(filepath.Join(mod, "client", "c.go"), []byte("package client // other\n"), 0o644)
	if ok, why := prebuiltStatus(m, "", mod); ok || !strings.Contains(why, "other engine sources") {
		t.Errorf("another engine's module: served %v, %q", ok, why)
	}
}

// TestManifest: MANIFEST's text reads back as written; an incomplete or
// garbled one is refused.
func TestManifest(t *testing.T) {
	m := &manifest{engineKey: "e1", viewKey: "v1", goVersion: "go1.26.8", dirs: []string{"client", "view/page"}, sums: map[string]string{}}
	for _, f := range pageAssets {
		m.sums[f] = "sum-" + f
	}
	got, err := parseManifest(m.encode())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.encode(), m.encode()) {
		t.Errorf("read back:\n%s\nwant:\n%s", got.encode(), m.encode())
	}
	for _, bad := range []string{"", "engine e1\n", string(m.encode()) + "what is this\n"} {
		if _, err := parseManifest([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestPrebuiltEmbedded: the committed prebuilt page reads: its MANIFEST
// parses, every file decodes and hashes as it says, and the files serve
// under their hashed names (zstd as embedded, gzip made when asked). Whether it is of this
// tree's sources is logged, not required (a stale page is not served:
// TestPrebuiltStatus); pagegen -check proves a current one rebuilds to
// the same bytes.
func TestPrebuiltEmbedded(t *testing.T) {
	m, err := embeddedManifest()
	if err != nil {
		t.Fatal(err)
	}
	p := &Files{prebuilt: m}
	if err := p.loadPrebuilt(m); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	p.Mount(mux)
	a := p.get(workerWasm)
	req := httptest.NewRequest("GET", "/"+a.name, nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	embedded, _ := prebuiltFS.ReadFile(prebuiltDir + "/" + workerWasm + ".zst")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "zstd" || !bytes.Equal(w.Body.Bytes(), embedded) {
		t.Errorf("GET %s: %d %q, %d bytes; want the embedded zstd (%d bytes)", a.name, w.Code, w.Header().Get("Content-Encoding"), w.Body.Len(), len(embedded))
	}
	req = httptest.NewRequest("GET", "/"+a.name, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	zr, err := gzip.NewReader(w.Body)
	if err != nil {
		t.Fatalf("GET %s, gzip: %d %v", a.name, w.Code, err)
	}
	if raw, err := io.ReadAll(zr); err != nil || !bytes.Equal(raw, a.raw) {
		t.Errorf("GET %s, gzip: %d bytes, %v; want the wasm's %d", a.name, len(raw), err, len(a.raw))
	}
	root, ok := findSource(".")
	if !ok {
		t.Fatal("no source tree")
	}
	served, why := prebuiltStatus(m, root, "")
	t.Logf("this tree: served=%v: %s", served, why)
}
