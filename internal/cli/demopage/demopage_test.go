package demopage

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestAcceptsEncoding reads Accept-Encoding as browsers send it.
func TestAcceptsEncoding(t *testing.T) {
	for _, tc := range []struct {
		header, enc string
		want        bool
	}{
		{"gzip, deflate, br, zstd", "zstd", true},
		{"gzip, deflate, br, zstd", "gzip", true},
		{"gzip, deflate, br", "zstd", false},
		{"GZIP;q=0.5", "gzip", true},
		{"gzip;q=0, zstd", "gzip", false},
		{"zstd; q=0.0", "zstd", false},
		{"", "gzip", false},
		{"xgzip", "gzip", false},
	} {
		if got := acceptsEncoding(tc.header, tc.enc); got != tc.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v", tc.header, tc.enc, got)
		}
	}
}

// TestServeWasm: zstd where accepted, else gzip, else plain; each decodes
// to the wasm, under its content-hashed name, cached for a year.
func TestServeWasm(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm wasm bytes "), 1000)
	a, err := compressed(pageWasm, wasm)
	if err != nil {
		t.Fatal(err)
	}
	exec, err := compressed(wasmExecName, []byte("// wasm_exec"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.name, "page.") || !strings.HasSuffix(a.name, ".wasm") || len(a.name) != len("page.0123456789ab.wasm") {
		t.Fatalf("hashed name %q", a.name)
	}
	if b, _ := compressed(pageWasm, append(wasm, 0)); b.name == a.name {
		t.Fatalf("other bytes, same name %q", a.name)
	}
	p := &Files{key: "k", assets: []*asset{a, exec}}
	mux := http.NewServeMux()
	p.Mount(mux)
	for _, tc := range []struct{ accept, enc string }{
		{"gzip, deflate, br, zstd", "zstd"},
		{"gzip, deflate", "gzip"},
		{"", ""},
	} {
		r := httptest.NewRequest("GET", "/"+a.name, nil)
		if tc.accept != "" {
			r.Header.Set("Accept-Encoding", tc.accept)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		body := w.Body.Bytes()
		if w.Code != 200 || w.Header().Get("Content-Encoding") != tc.enc || w.Header().Get("Content-Type") != "application/wasm" ||
			!strings.Contains(w.Header().Get("Cache-Control"), "max-age=31536000") {
			t.Fatalf("%q: %d, encoding %q, type %q, cache %q", tc.accept, w.Code, w.Header().Get("Content-Encoding"),
				w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"))
		}
		switch tc.enc {
		case "zstd":
			d, _ := zstd.NewReader(nil)
			body, err = d.DecodeAll(body, nil)
			d.Close()
		case "gzip":
			var zr *gzip.Reader
			if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
				body, err = io.ReadAll(zr)
			}
		}
		if err != nil || !bytes.Equal(body, wasm) {
			t.Errorf("%q: body does not decode to the wasm (%v)", tc.accept, err)
		}
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/"+exec.name, nil))
	if w.Code != 200 || w.Body.String() != "// wasm_exec" {
		t.Errorf("wasm_exec.js: %d %q", w.Code, w.Body.String())
	}
}

// TestFindSource finds the tree from any directory inside it, and not
// outside.
func TestFindSource(t *testing.T) {
	root, ok := findSource(".")
	if abs, _ := filepath.Abs("."); !ok {
		t.Fatalf("no source tree above %s", abs)
	}
	wd, _ := os.Getwd()
	if dir, ok := findSource(wd); !ok || dir != filepath.Join(wd, "..", "..", "..") {
		t.Errorf("findSource(%s) = %q, %v", wd, dir, ok)
	}
	if _, ok := findSource(t.TempDir()); ok {
		t.Error("found a source tree in an empty temp dir")
	}
	if _, err := os.Stat(filepath.Join(root, "view", "page")); err != nil {
		t.Errorf("the view module has no page: %v", err)
	}
}

// TestSourceKey changes with a source file and with the Go version, and
// not with a test file.
func TestSourceKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("a.go", "package x\n")
	k1, _ := sourceKey(dir, "go1.26.8")
	write("a_test.go", "package x\n")
	k2, _ := sourceKey(dir, "go1.26.8")
	write("a.go", "package x // changed\n")
	k3, _ := sourceKey(dir, "go1.26.8")
	k4, _ := sourceKey(dir, "go1.27")
	if k1 != k2 || k2 == k3 || k3 == k4 {
		t.Errorf("keys %s %s %s %s", k1, k2, k3, k4)
	}
}

// TestPruneBuilds keeps the newest builds and drops old leftovers.
func TestPruneBuilds(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i, name := range []string{"a", "b", "c", "d", "build-old", "build-new"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-time.Duration(i) * time.Minute)
		if name == "build-old" {
			at = now.Add(-2 * time.Hour)
		}
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	pruneBuilds(dir, 3)
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != "a b build-new c" {
		t.Errorf("left %v, want a b c and build-new", got)
	}
}

// TestPageBuilding: while the wasm builds, / says "building" with the
// build's progress and names the room; once the files are set it plays
// (the hashed files named, the word gone); a failed build says why.
func TestPageBuilding(t *testing.T) {
	p := NewPage("ws://127.0.0.1:8080/rooms", true)
	p.SetRoom("K3F9QX", "", "grid=256 tick-rate=60", 60)
	get := func() string {
		w := httptest.NewRecorder()
		p.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		return w.Body.String()
	}
	p.SetProgress("page.wasm: 12 packages compiled (of 300 linked), 4 s")
	if b := get(); !strings.Contains(b, "building") || !strings.Contains(b, "12 packages compiled") || !strings.Contains(b, "K3F9QX") {
		t.Fatalf("while building:\n%s", b)
	}
	var assets []*asset
	for _, f := range pageAssets {
		a, err := compressed(f, []byte("// "+f))
		if err != nil {
			t.Fatal(err)
		}
		assets = append(assets, a)
	}
	p.SetFiles(&Files{assets: assets}, nil)
	b := get()
	if strings.Contains(b, "building") || !strings.Contains(b, assets[0].name) || !strings.Contains(b, `id="status"`) {
		t.Fatalf("once built:\n%s", b)
	}
	p.SetFiles(nil, errors.New("go build failed"))
	if b := get(); !strings.Contains(b, "go build failed") || strings.Contains(b, `id="status"`) {
		t.Fatalf("failed build:\n%s", b)
	}
	p.SetFiles(&Files{assets: assets}, nil)
	if b := get(); !strings.Contains(b, `data-game="sand"`) || !strings.Contains(b, `data-settings="grid=256 tick-rate=60"`) {
		t.Fatalf("sand's page names no game or no settings:\n%s", b)
	}
	p.SetGame("ships", "space fires")
	if b := get(); !strings.Contains(b, `data-game="ships"`) || !strings.Contains(b, "ships: space fires") || !strings.Contains(b, `<a href="?host=1">ships</a>`) {
		t.Fatalf("ships' page:\n%s", b)
	}
	p.SetGames([]string{"cards", "sand"})
	if b := get(); !strings.Contains(b, `host a new room: <a href="?host=1&amp;game=cards">cards</a> · <a href="?host=1&amp;game=sand">sand</a>`) {
		t.Fatalf("the page offers no game to host:\n%s", b)
	}
}

// TestBootSaysNoBuilding: the playing page carries view/page/boot.js
// inline at the top of its head (its code, not its whole-line comments,
// and before any file the page names), and none of it says "building":
// the word is how the demo's tests tell the building page from the
// playing one. A "</" in the script would end the <script> element: it
// is written "<\/".
func TestBootSaysNoBuilding(t *testing.T) {
	boot, err := os.ReadFile(filepath.Join("..", "..", "..", "view", "page", "boot.js"))
	if err != nil {
		t.Fatal(err)
	}
	var assets []*asset
	for _, f := range pageAssets {
		raw := []byte("// " + f)
		if f == bootJS {
			raw = append(boot, "\nconst s = \"</script>\";\n"...)
		}
		a, err := compressed(f, raw)
		if err != nil {
			t.Fatal(err)
		}
		assets = append(assets, a)
	}
	p := NewPage("ws://127.0.0.1:8080/rooms", true)
	p.SetRoom("K3F9QX", "", "grid=256 tick-rate=60", 60)
	p.SetFiles(&Files{assets: assets}, nil)
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	b := w.Body.String()
	head, _, _ := strings.Cut(b, "</head>")
	script := strings.Index(head, "<script>")
	if script < 0 || !strings.Contains(head, "new Worker(") || !strings.Contains(head, "compileStreaming") {
		t.Fatalf("the head has no inline boot script:\n%s", head)
	}
	for _, a := range assets {
		if i := strings.Index(head, `href="`+a.name+`"`); i >= 0 && i < script {
			t.Errorf("the head names %s before the boot script", a.name)
		}
	}
	if strings.Contains(strings.ToLower(b), "building") {
		t.Errorf("the playing page says building:\n%s", b)
	}
	if strings.Contains(head[script:], "// boot.js") || strings.Count(head, "</script>") != 1 || !strings.Contains(head, `"<\/script>"`) {
		t.Errorf("the inline script's comments or its </ are as written:\n%s", head[script:])
	}
	for _, attr := range []string{`data-relay="ws://127.0.0.1:8080/rooms"`, `data-room="K3F9QX"`, `data-tick-rate="60"`, `data-worker-wasm="` + assets[1].name + `"`} {
		if !strings.Contains(b, "<html lang=\"en\" ") || !strings.Contains(b[:strings.Index(b, "<head>")], attr) {
			t.Errorf("the <html> element lacks %s", attr)
		}
	}
}
