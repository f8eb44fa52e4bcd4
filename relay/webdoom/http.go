package webdoom

import (
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// webDoomFiles serves a WebDoom tree: /engine/* from build/, /wads/* from
// wads/lib/ (cached as immutable), everything else from client/ ("/" is
// index.html), /api/wads from wads/manifest.json and /api/ui-assets from
// the IWAD (uiassets.go). Files are opened through os.Root, so nothing
// outside the tree can be reached.
type webDoomFiles struct {
	dir    string
	mounts []webDoomMount
	ui     *uiAssets // nil: no wads/lib
	gz     *gzipCache
	log    *slog.Logger
}

type webDoomMount struct {
	prefix string
	root   *os.Root
}

var webDoomMIME = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".wasm": "application/wasm",
	".wad":  "application/octet-stream",
}

// webDoomSecurityHeaders are WebDoom's headers on every response.
var webDoomSecurityHeaders = map[string]string{
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"Content-Security-Policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data: blob:; media-src 'self' data: blob:; connect-src 'self' ws: wss:; worker-src 'self' blob:; " +
		"object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
}

func newFiles(dir string, log *slog.Logger) *webDoomFiles {
	f := &webDoomFiles{dir: dir, log: log, gz: newGzipCache(gzipCacheMax)}
	if dir == "" {
		return f
	}
	for _, m := range []struct{ prefix, sub string }{{"/engine/", "build"}, {"/wads/", "wads/lib"}, {"/", "client"}} {
		root, err := os.OpenRoot(filepath.Join(dir, m.sub))
		if err != nil {
			log.Warn("webdoom: not serving a directory", "dir", filepath.Join(dir, m.sub), "err", err)
			continue
		}
		f.mounts = append(f.mounts, webDoomMount{m.prefix, root})
	}
	f.ui = newUIAssets(dir, log)
	return f
}

// close releases the tree's directories.
func (f *webDoomFiles) close() {
	for _, m := range f.mounts {
		m.root.Close()
	}
	if f.ui != nil {
		f.ui.lib.Close()
	}
}

func wdSend(rw http.ResponseWriter, code int, contentType, body string) {
	wdSendBytes(rw, code, contentType, []byte(body))
}

// wdSendBytes answers as WebDoom's send() does: cache-control no-store,
// the content type (text/plain when none), the exact length.
func wdSendBytes(rw http.ResponseWriter, code int, contentType string, body []byte) {
	h := rw.Header()
	for k, v := range webDoomSecurityHeaders {
		h.Set(k, v)
	}
	h.Set("Cache-Control", "no-store")
	if contentType == "" {
		contentType = "text/plain; charset=utf-8"
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(code)
	rw.Write(body)
}

// serveHTTP answers the plain HTTP routes.
func (s *Server) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if strings.Contains(path, "..") || strings.Contains(r.URL.RawPath, "..") {
		wdSend(rw, http.StatusBadRequest, "", "bad path")
		return
	}
	path = wdCleanPath(path)
	switch {
	case path == "/api/wads":
		s.files.manifest(rw)
	case strings.HasPrefix(path, "/api/demos") && r.Method == http.MethodPost && !s.uploads.allow(r.RemoteAddr):
		wdSend(rw, http.StatusTooManyRequests, "", "too many uploads from this address — try again later")
	case path == "/api/demos" && r.Method == http.MethodPost:
		s.demos.post(rw, r)
	case strings.HasPrefix(path, "/api/demos/"):
		s.demos.route(rw, r, strings.TrimPrefix(path, "/api/demos/"))
	case path == "/api/ui-assets":
		s.files.uiAssets(rw)
	default:
		s.files.serve(rw, r, path)
	}
}

// wdCleanPath collapses empty and "." segments as WebDoom's server does
// (Node's path.normalize); ".." never reaches it (400 before).
func wdCleanPath(p string) string {
	if !strings.Contains(p, "//") && !strings.Contains(p, "/./") && !strings.HasSuffix(p, "/.") {
		return p
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// uiAssets answers GET /api/ui-assets (uiassets.go).
func (f *webDoomFiles) uiAssets(rw http.ResponseWriter) {
	var body []byte
	if f.ui != nil {
		body = f.ui.get()
	}
	if body == nil {
		wdSend(rw, http.StatusNotFound, "", "no IWAD available")
		return
	}
	wdSendBytes(rw, http.StatusOK, "application/json", body)
}

func (f *webDoomFiles) manifest(rw http.ResponseWriter) {
	if f.dir == "" {
		wdSend(rw, http.StatusNotFound, "", "not found")
		return
	}
	b, err := os.ReadFile(filepath.Join(f.dir, "wads", "manifest.json"))
	if err != nil {
		// As WebDoom: an unreadable manifest is an empty library, not a crash.
		f.log.Warn("webdoom: wads/manifest.json unreadable; serving an empty library", "err", err)
		b = []byte(`{"wads":[]}`)
	}
	wdSendBytes(rw, http.StatusOK, "application/json", b)
}
