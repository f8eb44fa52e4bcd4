package webdoom

import (
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// webDoomFiles serves a WebDoom tree: /engine/* from build/, /wads/* from
// wads/lib/ (cached as immutable), everything else from client/ ("/" is
// index.html), and /api/wads from wads/manifest.json. Files are opened
// through os.Root, so nothing outside the tree can be reached.
type webDoomFiles struct {
	dir    string
	mounts []webDoomMount
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
	f := &webDoomFiles{dir: dir, log: log}
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
	return f
}

func wdSend(rw http.ResponseWriter, code int, contentType, body string) {
	h := rw.Header()
	for k, v := range webDoomSecurityHeaders {
		h.Set(k, v)
	}
	h.Set("Cache-Control", "no-store")
	if contentType == "" {
		contentType = "text/plain; charset=utf-8"
	}
	h.Set("Content-Type", contentType)
	rw.WriteHeader(code)
	rw.Write([]byte(body))
}

// serveHTTP answers the plain HTTP routes.
func (s *Server) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if strings.Contains(path, "..") || strings.Contains(r.URL.RawPath, "..") {
		wdSend(rw, http.StatusBadRequest, "", "bad path")
		return
	}
	switch {
	case path == "/api/wads":
		s.files.manifest(rw)
	case path == "/api/demos" && r.Method == http.MethodPost:
		s.demos.post(rw, r)
	case strings.HasPrefix(path, "/api/demos/"):
		s.demos.route(rw, r, strings.TrimPrefix(path, "/api/demos/"))
	default:
		s.files.serve(rw, r, path)
	}
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
	wdSend(rw, http.StatusOK, "application/json", string(b))
}

func (f *webDoomFiles) serve(rw http.ResponseWriter, r *http.Request, path string) {
	if path == "/" {
		path = "/index.html"
	}
	for _, m := range f.mounts {
		rel, ok := strings.CutPrefix(path, m.prefix)
		if !ok || rel == "" || !fs.ValidPath(rel) {
			continue
		}
		file, err := m.root.Open(rel)
		if err != nil {
			continue
		}
		st, err := file.Stat()
		if err != nil || !st.Mode().IsRegular() {
			file.Close()
			continue
		}
		h := rw.Header()
		for k, v := range webDoomSecurityHeaders {
			h.Set(k, v)
		}
		ct, ok := webDoomMIME[filepath.Ext(rel)]
		if !ok {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		if m.prefix == "/wads/" {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-store")
		}
		http.ServeContent(rw, r, rel, st.ModTime(), file)
		file.Close()
		return
	}
	wdSend(rw, http.StatusNotFound, "", "not found")
}
