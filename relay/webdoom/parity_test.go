package webdoom

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/internal/testing/testutil"
)

// parityTree writes a WebDoom tree with the files the page, the engine
// and WebDoom's tools fetch.
func parityTree(t *testing.T) (dir string, files map[string][]byte) {
	t.Helper()
	dir = t.TempDir()
	files = map[string][]byte{
		"client/index.html":       []byte("<!doctype html><title>webdoom</title>" + strings.Repeat("<p>menu</p>", 200)),
		"client/js/main.js":       []byte("export const x = 1;\n" + strings.Repeat("// lobby\n", 300)),
		"client/css/webdoom.css":  []byte("body { color: red }\n"),
		"client/sw.js":            []byte("self.addEventListener('fetch', () => {});\n"),
		"client/favicon.ico":      []byte("\x00\x00\x01\x00"),
		"build/doom.js":           []byte("var createDoom = () => {};\n"),
		"build/doom.wasm":         append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{0x0b}, 5000)...),
		"wads/lib/doom.wad":       makeWAD("IWAD", wadLump{"PLAYPAL", bytes.Repeat([]byte{9}, 768)}, wadLump{"TITLEPIC", []byte("pic")}, wadLump{"M_DOOM", []byte("logo")}),
		"wads/manifest.json":      []byte(`{"generated":"x","wads":[{"file":"doom.wad","sha256":"abc"}]}`),
		"secret.txt":              []byte("outside the served directories"),
		"client/precompressed.js": []byte("console.log('precompressed');\n"),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// TestHTTPParity checks every route the WebDoom page, its engine and
// WebDoom's tools use against what WebDoom's server (server/serve.js)
// answers: status, content type, cache-control, content-length and body.
// docs/webdoom.md has the same table.
func TestHTTPParity(t *testing.T) {
	testutil.CheckGoroutines(t, 10*time.Second)
	dir, files := parityTree(t)
	cfg := DefaultServerConfig()
	cfg.Dir = dir
	s := NewServer(cfg)
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()

	demo := bytes.Repeat([]byte{7}, 300)
	sum := sha256.Sum256(demo)
	id := hex.EncodeToString(sum[:])
	unknown := strings.Repeat("0", 64)
	const (
		html  = "text/html; charset=utf-8"
		js    = "text/javascript; charset=utf-8"
		css   = "text/css; charset=utf-8"
		jsn   = "application/json"
		bin   = "application/octet-stream"
		text  = "text/plain; charset=utf-8" // WebDoom sends no content type here
		app   = "no-store"
		year  = "public, max-age=31536000, immutable"
		trace = `{"tics":3,"trace":[1,2,3]}`
	)
	ui := string(s.files.ui.get())
	cases := []struct {
		method, target, body   string
		code                   int
		ctype, cache, wantBody string // wantBody "*": not checked
	}{
		// The app, the engine and the WAD library.
		{"GET", "/", "", 200, html, app, string(files["client/index.html"])},
		{"GET", "/index.html?v=3", "", 200, html, app, string(files["client/index.html"])},
		{"GET", "//index.html", "", 200, html, app, string(files["client/index.html"])},
		{"GET", "/js/main.js", "", 200, js, app, string(files["client/js/main.js"])},
		{"GET", "/css/webdoom.css", "", 200, css, app, string(files["client/css/webdoom.css"])},
		{"GET", "/sw.js", "", 200, js, app, string(files["client/sw.js"])},
		{"GET", "/favicon.ico", "", 200, bin, app, string(files["client/favicon.ico"])},
		{"GET", "/engine/doom.js", "", 200, js, app, string(files["build/doom.js"])},
		{"GET", "/engine/doom.wasm", "", 200, "application/wasm", app, string(files["build/doom.wasm"])},
		{"GET", "/wads/doom.wad?v=abc", "", 200, bin, year, string(files["wads/lib/doom.wad"])},
		{"HEAD", "/wads/doom.wad", "", 200, bin, year, ""},
		{"POST", "/index.html", "x", 200, html, app, string(files["client/index.html"])},
		{"GET", "/api/wads", "", 200, jsn, app, string(files["wads/manifest.json"])},
		{"GET", "/api/ui-assets", "", 200, jsn, app, ui},
		{"GET", "/api/ui-assets?x=1", "", 200, jsn, app, ui},
		// Not found and bad paths.
		{"GET", "/nope.html", "", 404, text, app, "not found"},
		{"GET", "/engine/", "", 404, text, app, "not found"},
		{"GET", "/wads/", "", 404, text, app, "not found"},
		{"GET", "/wads/missing.wad", "", 404, text, app, "not found"},
		{"GET", "/api/demos", "", 404, text, app, "not found"},
		{"GET", "/a..b", "", 400, text, app, "bad path"},
		{"GET", "/wads/..%2f..%2fsecret.txt", "", 400, text, app, "bad path"},
		{"GET", "/%2e%2e/secret.txt", "", 400, text, app, "bad path"},
		// The demo store.
		{"POST", "/api/demos?wad=doom.wad", string(demo), 201, jsn, app, fmt.Sprintf(`{"id":"%s","size":300}`, id)},
		{"GET", "/api/demos/" + id, "", 200, bin, app, string(demo)},
		{"GET", "/api/demos/" + unknown, "", 404, text, app, "demo not found"},
		{"PUT", "/api/demos/" + id, "", 405, text, app, "method not allowed"},
		{"HEAD", "/api/demos/" + id, "", 405, text, app, ""},
		{"GET", "/api/demos/stats", "", 400, text, app, "invalid demo id"},
		{"GET", "/api/demos/" + strings.ToUpper(id), "", 400, text, app, "invalid demo id"},
		// Demo attestations (/verify), WebDoom's statuses.
		{"GET", "/api/demos/" + id + "/verify", "", 404, text, app, "no attestation stored for this demo"},
		{"POST", "/api/demos/xyz/verify", trace, 400, text, app, "invalid demo id"},
		{"POST", "/api/demos/" + unknown + "/verify", trace, 404, text, app, "demo not found"},
		{"POST", "/api/demos/" + unknown + "/verify", `{"tics":1}`, 404, text, app, "demo not found"},
		{"POST", "/api/demos/" + unknown + "/verify", `{`, 400, text, app, "invalid JSON body"},
		{"POST", "/api/demos/" + unknown + "/verify", `null`, 400, text, app, wdAttestationNotObject},
		{"POST", "/api/demos/" + id + "/verify", `{"tics":"3","trace":[]}`, 400, text, app, "attestation must have {tics: number, trace: Array}"},
		{"POST", "/api/demos/" + id + "/verify", `{"tics":3,"trace":[1,-1]}`, 400, text, app, "trace[1] is not a u32"},
		{"POST", "/api/demos/" + id + "/verify", `{"tics":3,"trace":[0.5]}`, 400, text, app, "trace[0] is not a u32"},
		{"POST", "/api/demos/" + id + "/verify", `{"tics":3,"trace":[` + strings.Repeat("0,", 200_000) + `0]}`, 413, text, app, "attestation trace exceeds tic cap"},
		{"POST", "/api/demos/" + id + "/verify", strings.Repeat(" ", webDoomVerifyMax+1), 413, text, app, fmt.Sprintf("attestation body exceeds %d byte cap", webDoomVerifyMax)},
		{"DELETE", "/api/demos/" + id + "/verify", "", 405, text, app, "method not allowed"},
		{"POST", "/api/demos/" + id + "/verify", trace, 200, jsn, app, fmt.Sprintf(`{"stored":true,"id":"%s"}`, id)},
		{"GET", "/api/demos/" + id + "/verify", "", 200, jsn, app, "*"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, ts.URL+c.target, strings.NewReader(c.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.target, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := c.method + " " + c.target
		if len(name) > 80 {
			name = name[:80]
		}
		if resp.StatusCode != c.code || (c.wantBody != "*" && string(body) != c.wantBody) {
			t.Errorf("%s: %d %.80q, want %d %.80q", name, resp.StatusCode, body, c.code, c.wantBody)
		}
		if got := resp.Header.Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: content-type %q, want %q", name, got, c.ctype)
		}
		if got := resp.Header.Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: cache-control %q, want %q", name, got, c.cache)
		}
		want := len(body)
		if c.method == "HEAD" && c.code == 200 {
			want = len(files["wads/lib/doom.wad"])
		}
		if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(want) && !(c.method == "HEAD" && c.code != 200) {
			t.Errorf("%s: content-length %q, want %d", name, got, want)
		}
	}
}

// TestHTTPWadRangesAndETags: /wads/* answers range requests and
// conditional requests on its ETag, so that a browser resumes or
// revalidates an IWAD instead of downloading it again.
func TestHTTPWadRangesAndETags(t *testing.T) {
	dir, files := parityTree(t)
	s := NewServer(ServerConfig{Dir: dir})
	defer s.Close()
	wad := files["wads/lib/doom.wad"]
	full := wdDoHeaders(s, "GET", "/wads/doom.wad", nil)
	etag := full.Header().Get("ETag")
	if full.Code != 200 || !strings.HasPrefix(etag, `"`) || full.Header().Get("Accept-Ranges") != "bytes" {
		t.Fatalf("full: %d etag %q %v", full.Code, etag, full.Header())
	}
	r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"Range": "bytes=4-11"})
	if r.Code != 206 || !bytes.Equal(r.Body.Bytes(), wad[4:12]) ||
		r.Header().Get("Content-Range") != fmt.Sprintf("bytes 4-11/%d", len(wad)) || r.Header().Get("Content-Length") != "8" {
		t.Fatalf("range: %d %q %v", r.Code, r.Body, r.Header())
	}
	if r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"If-None-Match": etag}); r.Code != 304 || r.Body.Len() != 0 {
		t.Fatalf("if-none-match: %d", r.Code)
	}
	if r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"If-None-Match": `"other"`}); r.Code != 200 || !bytes.Equal(r.Body.Bytes(), wad) {
		t.Fatalf("stale if-none-match: %d", r.Code)
	}
	// If-Range with a stale ETag: the whole file.
	if r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"Range": "bytes=0-3", "If-Range": `"old"`}); r.Code != 200 || !bytes.Equal(r.Body.Bytes(), wad) {
		t.Fatalf("if-range stale: %d", r.Code)
	}
	if r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"Range": "bytes=0-3", "If-Range": etag}); r.Code != 206 || !bytes.Equal(r.Body.Bytes(), wad[:4]) {
		t.Fatalf("if-range current: %d", r.Code)
	}
	// The file changes: a new ETag.
	p := filepath.Join(dir, "wads", "lib", "doom.wad")
	os.WriteFile(p, append(wad, 0), 0o644)
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if r := wdDoHeaders(s, "GET", "/wads/doom.wad", map[string]string{"If-None-Match": etag}); r.Code != 200 || r.Header().Get("ETag") == etag {
		t.Fatalf("changed file: %d etag %q", r.Code, r.Header().Get("ETag"))
	}
}

// TestHTTPCompression: app and engine files go gzip-compressed to a
// client that accepts it (a precompressed NAME.gz when present and as new)
// and decode to the very bytes sent uncompressed; WADs, ranges and clients
// without gzip get the file as it is.
func TestHTTPCompression(t *testing.T) {
	dir, files := parityTree(t)
	var pre bytes.Buffer
	zw := gzip.NewWriter(&pre)
	zw.Write(files["client/precompressed.js"])
	zw.Close()
	os.WriteFile(filepath.Join(dir, "client", "precompressed.js.gz"), pre.Bytes(), 0o644)
	s := NewServer(ServerConfig{Dir: dir})
	defer s.Close()
	gz := map[string]string{"Accept-Encoding": "gzip, deflate, br"}
	for target, file := range map[string]string{
		"/": "client/index.html", "/js/main.js": "client/js/main.js", "/engine/doom.wasm": "build/doom.wasm",
		"/css/webdoom.css": "client/css/webdoom.css", "/precompressed.js": "client/precompressed.js",
	} {
		for range 2 { // compressed once, then from the cache
			r := wdDoHeaders(s, "GET", target, gz)
			if r.Code != 200 || r.Header().Get("Content-Encoding") != "gzip" || r.Header().Get("Vary") != "Accept-Encoding" ||
				r.Header().Get("Content-Length") != strconv.Itoa(r.Body.Len()) || r.Header().Get("Cache-Control") != "no-store" {
				t.Fatalf("%s: %d %v", target, r.Code, r.Header())
			}
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, files[file]) {
				t.Fatalf("%s: decoded %d bytes (%v), want the file's %d", target, len(got), err, len(files[file]))
			}
		}
	}
	if r := wdDoHeaders(s, "GET", "/precompressed.js", gz); !bytes.Equal(r.Body.Bytes(), pre.Bytes()) {
		t.Fatal("precompressed.js.gz not served as it is")
	}
	if r := wdDoHeaders(s, "HEAD", "/js/main.js", gz); r.Code != 200 || r.Body.Len() != 0 || r.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("HEAD: %d %d %v", r.Code, r.Body.Len(), r.Header())
	}
	for _, c := range []struct {
		target string
		h      map[string]string
	}{
		{"/js/main.js", nil},
		{"/js/main.js", map[string]string{"Accept-Encoding": "gzip;q=0, br"}},
		{"/js/main.js", map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-"}},
		{"/wads/doom.wad", gz},
		{"/favicon.ico", gz},
	} {
		if r := wdDoHeaders(s, "GET", c.target, c.h); r.Header().Get("Content-Encoding") != "" || r.Body.Len() == 0 {
			t.Errorf("%s %v: encoding %q", c.target, c.h, r.Header().Get("Content-Encoding"))
		}
	}
	// A changed file is compressed again.
	p := filepath.Join(dir, "client", "js", "main.js")
	os.WriteFile(p, []byte("changed"), 0o644)
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	r := wdDoHeaders(s, "GET", "/js/main.js", gz)
	zr, _ := gzip.NewReader(r.Body)
	if got, _ := io.ReadAll(zr); string(got) != "changed" {
		t.Fatalf("after a change: %q", got)
	}
}

func wdDoHeaders(h http.Handler, method, target string, headers map[string]string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	h.ServeHTTP(rec, req)
	return rec
}
